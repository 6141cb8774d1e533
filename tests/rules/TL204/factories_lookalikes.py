# torchlint-test: select=TL204
# Look-alikes of factories.py: a factory that returns an unpinned loader, or one of two loaders; a
# comprehension over something that is not a batch; kwargs dicts that never pin, or that a `pop` may
# change.
import torch
from torch.utils.data import DataLoader

use_cuda = torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")


def plain_loader(dataset):
    return DataLoader(dataset, batch_size=8)


def either_loader(dataset, pinned):
    if pinned:
        return DataLoader(dataset, batch_size=8, pin_memory=True)
    return DataLoader(dataset, batch_size=8, pin_memory=False)


class Trainer:
    def __init__(self, loader):
        self.loader = loader

    def run(self, model):
        for x, y in self.loader:
            model(x.to(device))


def main(dataset, model):
    Trainer(plain_loader(dataset)).run(model)
    for x, y in either_loader(dataset, True):
        model(x.to(device))
    weights = [w.to(device) for w in model.parameters()]


kwargs = {"num_workers": 1} if use_cuda else {"pin_memory": False}
loader = DataLoader(dataset, batch_size=8, **kwargs)
for x, y in loader:
    x = x.to(device)

popped = {"pin_memory": True}
if not use_cuda:
    popped.pop("pin_memory")
maybe_pinned = DataLoader(dataset, **popped)
for x, y in maybe_pinned:
    x = x.to(device)
