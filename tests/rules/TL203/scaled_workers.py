# torchlint-test: select=TL203
# Worker counts computed at run time that are above 0 on a CUDA run: products and sums of positive
# argparse defaults, constants and `torch.cuda.device_count()`, through `int(...)` and an option scaled in
# place (`opt.workers = opt.workers * opt.num_gpu` reads the default before the write).
import argparse

import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=4)
parser.add_argument("--extra", type=int, default=2)
opt = parser.parse_args()
device = torch.device("cuda")
opt.num_gpu = torch.cuda.device_count()
if opt.num_gpu > 1:
    opt.workers = opt.workers * opt.num_gpu
per_gpu = 2 * torch.cuda.device_count()


def run_epoch(model, loader):
    for x, y in loader:
        model(x.to(device)).sum().backward()


def train(model, dataset):
    scaled = DataLoader(dataset, batch_size=64, num_workers=int(opt.workers))  # error: [TL203]
    summed = DataLoader(dataset, batch_size=64, num_workers=opt.extra + torch.cuda.device_count())  # error: [TL203]
    local = DataLoader(dataset, batch_size=64, num_workers=per_gpu)  # error: [TL203]
    for epoch in range(10):
        run_epoch(model, scaled)
        run_epoch(model, summed)
        run_epoch(model, local)
