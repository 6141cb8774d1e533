# torchlint-test: select=TL203
# Look-alikes of factories.py: a factory called every epoch builds a new loader each time; kwargs that
# keep the workers on the GPU path, or that a `pop` may change; `int` of a string option.
import argparse

import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--workers", default="2")
opt = parser.parse_args()
use_cuda = torch.cuda.is_available()


def make_loader(dataset):
    return DataLoader(dataset, batch_size=8, num_workers=4)


for epoch in range(3):
    for x in make_loader(dataset):
        pass

kept_kwargs = {"batch_size": 8}
if use_cuda:
    kept_kwargs.update({"num_workers": 1, "persistent_workers": True})
kept = DataLoader(dataset, **kept_kwargs)
popped_kwargs = {"num_workers": 4}
popped_kwargs.pop("num_workers")
popped = DataLoader(dataset, **popped_kwargs)
text_workers = DataLoader(dataset, num_workers=int(opt.workers))


def train_one_epoch(epoch):
    for step, x in enumerate(kept):
        print(epoch, step)


for epoch in range(3):
    train_one_epoch(epoch)
    first = next(iter(popped))
    for i, x in enumerate(text_workers):
        if i > 10:
            break
