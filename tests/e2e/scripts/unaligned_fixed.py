# unaligned_fixed.py: TL401 unaligned-dim, the fixed twin of unaligned.py.
#
# The same classifier with its sizes padded to multiples of 8: nn.Linear(256, 1024) and
# nn.Linear(1024, 10) (a 10-class head is below the rule's minimum of 64). In the trace, aten::addmm has
# Input Dims [[1024], [64, 256], [256, 1024], [], []].
# The loop is at module level, under `if __name__ == "__main__":`, and makes its batches with torch.randn
# (no DataLoader).
#
# Usage: python3 unaligned_fixed.py OUT_DIR    writes OUT_DIR/unaligned_fixed.pt.trace.json
# Profiled: schedule(wait=1, warmup=1, active=2, repeat=1): the trace holds ProfilerStep#2 and #3.
import os
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule

BATCH_SIZE = 64
STEPS = 6
IN_FEATURES = 256
HIDDEN = 1024
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
    prof.export_chrome_trace(os.path.join(sys.argv[1], "unaligned_fixed.pt.trace.json"))


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
