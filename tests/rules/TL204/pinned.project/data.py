# torchlint-test: select=TL202,TL204
# Loader factories of the project: train.py iterates what they return. A pinned one, an unpinned one, one
# Accelerate prepares (its batches come out on the device), and a function that returns no loader.
from accelerate import Accelerator
from torch.utils.data import DataLoader


def build_loader(dataset):
    loader = DataLoader(dataset, batch_size=8, num_workers=2, pin_memory=True)
    return loader


def build_unpinned(dataset):
    return DataLoader(dataset, batch_size=8, num_workers=2, pin_memory=False)  # error: [TL202]


def build_prepared(dataset, accelerator: Accelerator):
    return accelerator.prepare(DataLoader(dataset, batch_size=8, num_workers=2, pin_memory=True))


def build_batches(dataset):
    return [dataset[i] for i in range(8)]
