# sync_item_fixed.py: TL101 sync-in-step-loop, the fixed twin of sync_item.py.
#
# The loss is summed on the device (`running_loss += loss.detach()`), and read back to the host only
# every LOG_EVERY steps, under `if step % LOG_EVERY == 0`, and once per epoch in the epoch loop. Neither
# read runs inside the profiled steps (#2 and #3), so the trace holds no aten::item at all. The linter
# reports nothing here: the guarded read is not every step, and the epoch loop is not the step loop.
#
# Usage: python3 sync_item_fixed.py OUT_DIR    writes OUT_DIR/sync_item_fixed.pt.trace.json
# Profiled: schedule(wait=1, warmup=1, active=2, repeat=1): the trace holds ProfilerStep#2 and #3,
# the third and fourth steps of epoch 0.
import os
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.data import DataLoader, TensorDataset

EPOCHS = 2
BATCH_SIZE = 64
STEPS_PER_EPOCH = 4
LOG_EVERY = 50


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
        prof.export_chrome_trace(os.path.join(out_dir, "sync_item_fixed.pt.trace.json"))

    with profile(activities=activities,
                 schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
                 record_shapes=True, profile_memory=True, with_stack=True,
                 on_trace_ready=on_trace_ready) as prof:
        step = 0
        for epoch in range(EPOCHS):
            running_loss = torch.zeros((), device=device)
            for x, y in loader:
                x, y = x.to(device), y.to(device)
                optimizer.zero_grad(set_to_none=True)
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                running_loss += loss.detach()
                if step % LOG_EVERY == 0:
                    print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
                step += 1
                prof.step()
            print(f"epoch {epoch}: mean loss {running_loss.item() / STEPS_PER_EPOCH:.4f}")


if __name__ == "__main__":
    main(sys.argv[1])
