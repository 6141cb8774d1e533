# torchlint-test: select=TL203
# Loaders iterated again pass after pass without a loop over them: an endless generator that yields
# from the loader, and an iterator rebuilt each time it runs out.
import torch
from torch.utils.data import DataLoader


def load_data(dataset, deterministic=False):
    if deterministic:
        loader = DataLoader(dataset, batch_size=8, shuffle=False, num_workers=1, persistent_workers=True)  # error: [TL203]
    else:
        loader = DataLoader(dataset, batch_size=8, shuffle=True, num_workers=1, persistent_workers=True)  # error: [TL203]
    while True:
        yield from loader


def maybe_cached(dataset, cached):
    # On the path that builds it, the loader is what the endless loop yields from.
    if cached:
        source = cached
    else:
        source = DataLoader(dataset, batch_size=8, num_workers=4, persistent_workers=True)  # error: [TL203]
    while True:
        yield from source


class Balanced:
    def __init__(self, dataset):
        self.loader = DataLoader(dataset, batch_size=8, num_workers=4, persistent_workers=True)  # error: [TL203]
        self.batches = iter(self.loader)

    def get_batch(self):
        try:
            return next(self.batches)
        except StopIteration:
            self.batches = iter(self.loader)
            return next(self.batches)
