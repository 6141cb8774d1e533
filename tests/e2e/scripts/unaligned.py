# unaligned.py: TL401 unaligned-dim, the anti-pattern.
#
# Linear layers whose sizes are not multiples of 8: nn.Linear(250, 1001) and nn.Linear(1001, 10). On a
# GPU, GEMMs with such K or N cannot use tensor cores at full rate (or at all, on older cuBLAS); padding
# to 256 and 1008 (or 1024) costs almost nothing. In the trace, record_shapes gives the GEMM sizes:
# aten::addmm with Input Dims [[1001], [64, 250], [250, 1001], [], []] in the forward, and aten::mm over
# the same sizes in the backward. On CPU there is no alignment penalty to measure.
# The loop is at module level, under `if __name__ == "__main__":`, and makes its batches with torch.randn
# (no DataLoader).
# Fixed twin: unaligned_fixed.py.
#
# Usage: python3 unaligned.py OUT_DIR    writes OUT_DIR/unaligned.pt.trace.json
# Profiled: schedule(wait=1, warmup=1, active=2, repeat=1): the trace holds ProfilerStep#2 and #3.
# Lines marked `# error: [TLxxx]` are what the linter must report (TL401 where each size is written).
import os
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule

BATCH_SIZE = 64
STEPS = 6
IN_FEATURES = 250  # error: [TL401]
HIDDEN = 1001  # error: [TL401]
CLASSES = 10


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(IN_FEATURES, HIDDEN)
        self.act = nn.GELU()
        self.head = nn.Linear(HIDDEN, CLASSES)

    def forward(self, x):
        return self.head(self.act(self.proj(x)))


def on_trace_ready(prof):
    prof.export_chrome_trace(os.path.join(sys.argv[1], "unaligned.pt.trace.json"))


if __name__ == "__main__":
    os.makedirs(sys.argv[1], exist_ok=True)
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Classifier().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)

    with profile(activities=activities,
                 schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
                 record_shapes=True, profile_memory=True, with_stack=True,
                 on_trace_ready=on_trace_ready) as prof:
        for step in range(STEPS):
            x = torch.randn(BATCH_SIZE, IN_FEATURES, device=device)
            y = torch.randint(0, CLASSES, (BATCH_SIZE,), device=device)
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            prof.step()
