# zero_grad_false.py: TL301 zero-grad-set-to-none, the anti-pattern.
#
# optimizer.zero_grad(set_to_none=False) writes zeros into every parameter's .grad each step, instead of
# dropping the gradients (set_to_none=True, the default since PyTorch 2.0): one memset per parameter, and
# backward then adds into those buffers instead of writing fresh ones. In the trace,
# Optimizer.zero_grad#SGD.zero_grad holds one aten::zero_ per parameter (14 here: 7 Linear layers with
# weight and bias), some of them with an aten::fill_ under them.
# Fixed twin: zero_grad_fixed.py.
#
# Usage: python3 zero_grad_false.py OUT_DIR    writes OUT_DIR/zero_grad_false.pt.trace.json
# Profiled: schedule(wait=1, warmup=1, active=2, repeat=1): the trace holds ProfilerStep#2 and #3.
# Lines marked `# error: [TLxxx]` are what the linter must report.
import os
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.data import DataLoader, TensorDataset

BATCH_SIZE = 64
STEPS = 6
WIDTH = 256
DEPTH = 6


def make_model():
    layers = []
    for _ in range(DEPTH):
        layers += [nn.Linear(WIDTH, WIDTH), nn.GELU()]
    layers.append(nn.Linear(WIDTH, 1))
    return nn.Sequential(*layers)


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    n = STEPS * BATCH_SIZE
    dataset = TensorDataset(torch.randn(n, WIDTH), torch.randn(n, 1))
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, num_workers=2, pin_memory=True)
    model = make_model().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)

    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)

    def on_trace_ready(prof):
        prof.export_chrome_trace(os.path.join(out_dir, "zero_grad_false.pt.trace.json"))

    with profile(activities=activities,
                 schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
                 record_shapes=True, profile_memory=True, with_stack=True,
                 on_trace_ready=on_trace_ready) as prof:
        for x, target in loader:
            x, target = x.to(device, non_blocking=True), target.to(device, non_blocking=True)
            optimizer.zero_grad(set_to_none=False)  # error: [TL301]
            loss = nn.functional.mse_loss(model(x), target)
            loss.backward()
            optimizer.step()
            prof.step()


if __name__ == "__main__":
    main(sys.argv[1])
