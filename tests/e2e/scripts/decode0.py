# decode0.py: TL201 dataloader-num-workers, the anti-pattern, with CPU-bound loading.
#
# DataLoader(num_workers=0) over a dataset whose __getitem__ burns CPU (a pure-Python loop standing in
# for image decoding and augmentation, about 2 ms per sample): the main process loads every batch
# itself, between steps. Unlike workers0.py, whose loading sleeps, the work moved to the workers here
# competes with the training process for the same cores, as real decoding does: this pair measures how
# much of the loader's time num_workers really wins back. Six steps are profiled, so that the step
# times of the pair compare.
# Fixed twin: decode0_fixed.py.
#
# Usage: python3 decode0.py OUT_DIR    writes OUT_DIR/decode0.pt.trace.json
# Profiled: schedule(wait=1, warmup=1, active=6, repeat=1): the trace holds ProfilerStep#2 to #7,
# the third to eighth steps of the only epoch (10 steps).
# Lines marked `# error: [TLxxx]` are what the linter must report.
import os
import sys

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.data import DataLoader, Dataset

EPOCHS = 1
BATCH_SIZE = 64
STEPS_PER_EPOCH = 10
DECODE_ITERATIONS = 20000


class DecodeDataset(Dataset):
    """Synthetic samples behind CPU-bound work, as behind an image decoder."""

    def __init__(self, n, features=64, classes=10):
        generator = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, features, generator=generator)
        self.y = torch.randint(0, classes, (n,), generator=generator)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        acc = 0
        for k in range(DECODE_ITERATIONS):  # the decoding: pure CPU work, no sleep
            acc = (acc + k * k) % 1000003
        return self.x[i] + acc * 0.0, self.y[i]


def make_model():
    return nn.Sequential(nn.Linear(64, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = DecodeDataset(STEPS_PER_EPOCH * BATCH_SIZE)
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True, num_workers=0, pin_memory=True)  # error: [TL201]
    model = make_model().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)

    def on_trace_ready(prof):
        prof.export_chrome_trace(os.path.join(out_dir, "decode0.pt.trace.json"))

    with profile(activities=activities,
                 schedule=schedule(wait=1, warmup=1, active=6, repeat=1),
                 record_shapes=True, profile_memory=True, with_stack=True,
                 on_trace_ready=on_trace_ready) as prof:
        for epoch in range(EPOCHS):
            for x, y in loader:
                x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
                optimizer.zero_grad(set_to_none=True)
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()
                prof.step()
            print(f"epoch {epoch} done")


if __name__ == "__main__":
    main(sys.argv[1])
