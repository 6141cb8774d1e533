# sync_item.py: TL101 sync-in-step-loop, the anti-pattern.
#
# Every step reads the loss back to the host twice: `running_loss += loss.item()`, and the f-string in
# `print(...)`, which formats the tensor (Tensor.__format__ calls .item()). On a GPU each of them blocks
# the host until the device has finished the step. On a CPU-only torch they appear as aten::item with a
# child aten::_local_scalar_dense that costs microseconds and syncs nothing: a cross-check on a CPU trace
# finds the lines ran and cost nothing.
# Fixed twin: sync_item_fixed.py.
#
# Usage: python3 sync_item.py OUT_DIR    writes OUT_DIR/sync_item.pt.trace.json
# Profiled: schedule(wait=1, warmup=1, active=2, repeat=1): the trace holds ProfilerStep#2 and #3,
# the third and fourth steps of epoch 0. Lines marked `# error: [TLxxx]` are what the linter must report.
import os
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.data import DataLoader, TensorDataset

EPOCHS = 2
BATCH_SIZE = 64
STEPS_PER_EPOCH = 4


def make_model():
    return nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    n = STEPS_PER_EPOCH * BATCH_SIZE
    dataset = TensorDataset(torch.randn(n, 32), torch.randint(0, 10, (n,)))
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True, num_workers=2, pin_memory=True)
    model = make_model().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)

    def on_trace_ready(prof):
        prof.export_chrome_trace(os.path.join(out_dir, "sync_item.pt.trace.json"))

    with profile(activities=activities,
                 schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
                 record_shapes=True, profile_memory=True, with_stack=True,
                 on_trace_ready=on_trace_ready) as prof:
        step = 0
        for epoch in range(EPOCHS):
            running_loss = 0.0
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad(set_to_none=True)
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                running_loss += loss.item()  # error: [TL101]
                print(f"epoch {epoch} step {step} loss {loss}")  # error: [TL101]
                step += 1
                prof.step()
            print(f"epoch {epoch}: mean loss {running_loss / STEPS_PER_EPOCH:.4f}")


if __name__ == "__main__":
    main(sys.argv[1])
