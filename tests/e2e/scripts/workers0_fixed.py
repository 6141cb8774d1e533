# workers0_fixed.py: TL201 dataloader-num-workers, the fixed twin of workers0.py.
#
# The same slow dataset, loaded by two worker processes that stay alive across epochs
# (num_workers=2, persistent_workers=True): while the main process runs a step, the workers read the
# next batches. In the trace, enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__ only waits on
# a queue, and the dataset's frames are gone from the main thread (worker processes are not traced).
# Adam on CPU calls .item() inside torch/optim (not in this file), as in workers0.py.
#
# Usage: python3 workers0_fixed.py OUT_DIR    writes OUT_DIR/workers0_fixed.pt.trace.json
# Profiled: schedule(wait=1, warmup=1, active=2, repeat=1): the trace holds ProfilerStep#2 and #3,
# the third and fourth steps of epoch 0.
import os
import sys
import time

import torch
import torch.nn as nn
from torch.profiler import ProfilerActivity, profile, schedule
from torch.utils.data import DataLoader, Dataset

EPOCHS = 2
BATCH_SIZE = 64
STEPS_PER_EPOCH = 4
READ_SECONDS = 0.0025


class SlowDataset(Dataset):
    """Synthetic samples behind a slow read, as from a slow disk or an image decoder."""

    def __init__(self, n, features=64, classes=10):
        generator = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, features, generator=generator)
        self.y = torch.randint(0, classes, (n,), generator=generator)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        time.sleep(READ_SECONDS)  # the slow read
        return self.x[i], self.y[i]


def make_model():
    return nn.Sequential(nn.Linear(64, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    dataset = SlowDataset(STEPS_PER_EPOCH * BATCH_SIZE)
    loader = DataLoader(dataset, batch_size=BATCH_SIZE, shuffle=True, num_workers=2, pin_memory=True,
                        persistent_workers=True)
    model = make_model().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)

    def on_trace_ready(prof):
        prof.export_chrome_trace(os.path.join(out_dir, "workers0_fixed.pt.trace.json"))

    with profile(activities=activities,
                 schedule=schedule(wait=1, warmup=1, active=2, repeat=1),
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
