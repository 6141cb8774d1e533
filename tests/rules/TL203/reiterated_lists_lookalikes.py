# torchlint-test: select=TL203
# Look-alikes: a list that holds something other than loaders too, loaders that keep their workers, and
# a list whose iterators are never rebuilt.
from torch.utils.data import DataLoader


class Mixed:
    def __init__(self, datasets, extra):
        self.loaders = []
        self.iterators = []
        for dataset in datasets:
            loader = DataLoader(dataset, batch_size=8, num_workers=4)
            self.loaders.append(loader)
            self.iterators.append(iter(loader))
        self.loaders.append(extra)

    def get_batch(self, i):
        try:
            return next(self.iterators[i])
        except StopIteration:
            self.iterators[i] = iter(self.loaders[i])
            return next(self.iterators[i])


class Kept:
    def __init__(self, datasets):
        self.loaders = []
        self.iterators = []
        for dataset in datasets:
            loader = DataLoader(dataset, batch_size=8, num_workers=4, persistent_workers=True)
            self.loaders.append(loader)
            self.iterators.append(iter(loader))

    def get_batch(self, i):
        try:
            return next(self.iterators[i])
        except StopIteration:
            self.iterators[i] = iter(self.loaders[i])
            return next(self.iterators[i])


def once(datasets):
    loaders = []
    for dataset in datasets:
        loaders.append(DataLoader(dataset, batch_size=8, num_workers=4))
    iterators = [iter(loader) for loader in loaders]
    return [next(iterator) for iterator in iterators]


def replaced(datasets, other):
    loaders = []
    for dataset in datasets:
        loaders.append(DataLoader(dataset, batch_size=8, num_workers=4))
    loaders[0] = other
    iterators = [iter(loader) for loader in loaders]
    while True:
        try:
            yield next(iterators[0])
        except StopIteration:
            iterators[0] = iter(loaders[0])
