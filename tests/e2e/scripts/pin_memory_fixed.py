# pin_memory_fixed.py: TL202 dataloader-pin-memory, the fixed twin of pin_memory.py.
#
# The DataLoader pins its batches (pin_memory=True) and the copies are asynchronous
# (`.to(device, non_blocking=True)`): on a GPU the host-to-device copies come from page-locked memory and
# can overlap compute. On a CPU-only torch pinning is skipped (the DataLoader warns that no accelerator
# was found) and the trace looks like pin_memory.py's.
#
# Usage: python3 pin_memory_fixed.py OUT_DIR    writes OUT_DIR/pin_memory_fixed.pt.trace.json
# Profiled: schedule(wait=1, warmup=1, active=2, repeat=1): the trace holds ProfilerStep#2 and #3.
import os
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.data import DataLoader, TensorDataset

BATCH_SIZE = 32
STEPS = 6


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    n = STEPS * BATCH_SIZE
    dataset = TensorDataset(torch.randn(n, 3, 32, 32), torch.randint(0, 10, (n,)))
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True, num_workers=2, pin_memory=True)
    model = SmallCNN().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)

    def on_trace_ready(prof):
        prof.export_chrome_trace(os.path.join(out_dir, "pin_memory_fixed.pt.trace.json"))

    with profile(activities=activities,
                 schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
                 record_shapes=True, profile_memory=True, with_stack=True,
                 on_trace_ready=on_trace_ready) as prof:
        for images, labels in loader:
            images = images.to(device, non_blocking=True)
            labels = labels.to(device, non_blocking=True)
            optimizer.zero_grad(set_to_none=True)
            loss = loss_fn(model(images), labels)
            loss.backward()
            optimizer.step()
            prof.step()


if __name__ == "__main__":
    main(sys.argv[1])
