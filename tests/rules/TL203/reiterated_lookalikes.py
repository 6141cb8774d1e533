# torchlint-test: select=TL203
# Look-alikes: a generator that yields from its loader once, a loader built again inside the loop that
# yields from it, an iterator made once and never rebuilt, workers kept through a config dict, and a
# name rebound to something else before the loop.
import torch
from torch.utils.data import DataLoader


def one_pass(dataset):
    loader = DataLoader(dataset, batch_size=8, num_workers=4)
    yield from loader


def fresh_each_pass(dataset):
    while True:
        loader = DataLoader(dataset, batch_size=8, num_workers=4)
        yield from loader


def persistent(dataset):
    loader_args = dict(batch_size=8, num_workers=4, persistent_workers=True)
    loader = DataLoader(dataset, **loader_args)
    while True:
        yield from loader


def replaced(dataset, other):
    source = DataLoader(dataset, batch_size=8, num_workers=4)
    source = other
    while True:
        yield from source


class Once:
    def __init__(self, dataset):
        self.loader = DataLoader(dataset, batch_size=8, num_workers=4)
        self.batches = iter(self.loader)

    def get_batch(self):
        try:
            return next(self.batches)
        except StopIteration:
            return None
