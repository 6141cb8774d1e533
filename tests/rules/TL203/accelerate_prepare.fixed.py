# torchlint-test: select=TL203
# Hugging Face Accelerate's `prepare` hands back the loader it is given, rebuilt with the same workers:
# `dl = accelerator.prepare(dl)` and `model, opt, dl = accelerator.prepare(model, opt, dl)` are the same
# loader, re-iterated here by `cycle()` generators' `while True:` (one per loader: a generator that several
# loaders go through is not followed). Look-alikes: a loader that keeps its
# workers, and one given to a `prepare` of something that is not an Accelerator (what it returns is not
# known to be the loader), each re-iterated by a generator of its own.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def cycle(dl):
    while True:
        for data in dl:
            yield data


def cycle_val(dl):
    while True:
        for data in dl:
            yield data


def cycle_kept(dl):
    while True:
        for data in dl:
            yield data


def cycle_other(dl):
    while True:
        for data in dl:
            yield data


class Trainer:
    def __init__(self, model, ds, cache):
        self.accelerator = Accelerator()
        self.model = model
        self.opt = torch.optim.Adam(model.parameters())
        dl = DataLoader(ds, batch_size=16, shuffle=True, num_workers=4, persistent_workers=True)  # error: [TL203]
        dl = self.accelerator.prepare(dl)
        self.dl = cycle(dl)
        val = DataLoader(ds, batch_size=16, num_workers=4, persistent_workers=True)  # error: [TL203]
        self.model, self.opt, val = self.accelerator.prepare(self.model, self.opt, val)
        self.val = cycle_val(val)
        kept = DataLoader(ds, batch_size=16, num_workers=4, persistent_workers=True)
        self.kept = cycle_kept(self.accelerator.prepare(kept))
        other = DataLoader(ds, batch_size=16, num_workers=4)
        self.other = cycle_other(cache.prepare(other))

    def train(self):
        for step in range(1000):
            device = self.accelerator.device
            a, b = next(self.dl).to(device), next(self.val).to(device)
            c, d = next(self.kept).to(device), next(self.other).to(device)
            loss = self.model(torch.cat([a, b, c, d])).sum()
            self.accelerator.backward(loss)
            self.opt.step()
