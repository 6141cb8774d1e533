# Look-alikes TL201 must not report: loaders that have workers, values it cannot resolve, and classes
# that are only named DataLoader.
import argparse

import torch
from torch.utils.data import DataLoader


class MyLoader:
    def __init__(self, dataset, num_workers=0):
        self.dataset = dataset


parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=4)
args = parser.parse_args()


def build(dataset, config, loader_kwargs):
    a = DataLoader(dataset, batch_size=32, num_workers=4)
    b = DataLoader(dataset, batch_size=32, num_workers=args.workers)  # argparse default 4
    c = DataLoader(dataset, batch_size=32, num_workers=config.workers)  # unknown: not reported
    d = DataLoader(dataset, **loader_kwargs)  # unknown splat
    e = MyLoader(dataset)  # not torch's DataLoader
    f = torch.utils.data.DataLoader(dataset, num_workers=8, pin_memory=True)
    return a, b, c, d, e, f
