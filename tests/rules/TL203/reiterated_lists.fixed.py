# torchlint-test: select=TL203
# Loaders kept in a list: an iterator of one of them rebuilt when it runs out restarts its workers.
from torch.utils.data import DataLoader


class Balanced:
    def __init__(self, datasets):
        self.loaders = []
        self.iterators = []
        for dataset in datasets:
            loader = DataLoader(dataset, batch_size=8, num_workers=4, persistent_workers=True)  # error: [TL203]
            self.loaders.append(loader)
            self.iterators.append(iter(loader))

    def get_batch(self):
        batches = []
        for i, iterator in enumerate(self.iterators):
            try:
                batches.append(next(iterator))
            except StopIteration:
                self.iterators[i] = iter(self.loaders[i])
                batches.append(next(self.iterators[i]))
        return batches


def balanced_batches(datasets):
    loaders = []
    for dataset in datasets:
        loaders.append(DataLoader(dataset, batch_size=8, num_workers=2, persistent_workers=True))  # error: [TL203]
    iterators = [iter(loader) for loader in loaders]
    while True:
        for i in range(len(iterators)):
            try:
                yield next(iterators[i])
            except StopIteration:
                iterators[i] = iter(loaders[i])
