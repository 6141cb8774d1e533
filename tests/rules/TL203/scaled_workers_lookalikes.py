# torchlint-test: select=TL203
# Not reported: counts that may be 0 on a CUDA run: a product with 0, with a value the model cannot
# bound (a function's result, `len(...)`, an option without a default) or with an option whose default
# is 0, and a difference or a floor division of positive values.
import argparse

import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=4)
parser.add_argument("--off", type=int, default=0)
parser.add_argument("--count", type=int)
args = parser.parse_args()
device = torch.device("cuda")
gpus = torch.cuda.device_count()


def run_epoch(model, loader):
    for x, y in loader:
        model(x.to(device)).sum().backward()


def train(model, dataset, devices):
    zero = DataLoader(dataset, num_workers=args.workers * 0 * gpus)
    unknown = DataLoader(dataset, num_workers=args.workers * workers_for(dataset))
    counted = DataLoader(dataset, num_workers=args.workers * len(devices))
    no_default = DataLoader(dataset, num_workers=args.count * gpus)
    off = DataLoader(dataset, num_workers=args.off * gpus)
    less = DataLoader(dataset, num_workers=args.workers * gpus - 4)
    halved = DataLoader(dataset, num_workers=gpus // 2)
    for epoch in range(10):
        run_epoch(model, zero)
        run_epoch(model, unknown)
        run_epoch(model, counted)
        run_epoch(model, no_default)
        run_epoch(model, off)
        run_epoch(model, less)
        run_epoch(model, halved)
