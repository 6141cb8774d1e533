# torchlint-test: select=TL203
# Loaders built and returned here, iterated by train.py: the worker counts are the ones train.py passes
# (the defaults where it passes none), and whether a loader restarts its workers is how often train.py
# iterates what it gets back.
from torch.utils.data import DataLoader


def make_train_loader(dataset, batch_size=16, num_workers=2):
    loader = DataLoader(dataset, batch_size=batch_size, num_workers=num_workers)  # error: [TL203]
    return loader


def make_default_loader(dataset, num_workers=2):
    return DataLoader(dataset, num_workers=num_workers)  # error: [TL203]


def make_loaders(dataset, workers):
    # train.py iterates the first element every epoch and the second once.
    train = DataLoader(dataset, num_workers=workers)  # error: [TL203]
    val = DataLoader(dataset, num_workers=workers)
    return train, val


# Look-alikes.
def make_eval_loader(dataset, num_workers=2):
    # Iterated once in all.
    return DataLoader(dataset, num_workers=num_workers)


def make_kept_loader(dataset, num_workers=2, persistent_workers=False):
    # train.py passes persistent_workers=True.
    return DataLoader(dataset, num_workers=num_workers, persistent_workers=persistent_workers)


def make_zero_loader(dataset, num_workers=2):
    # train.py passes num_workers=0: no workers to keep.
    return DataLoader(dataset, num_workers=num_workers)


def make_unknown_loader(dataset, num_workers=2):
    # train.py passes a count it computes at run time.
    return DataLoader(dataset, num_workers=num_workers)


def make_fresh_loader(dataset):
    # train.py calls it once per epoch: each epoch has a new loader, whose workers cannot persist.
    return DataLoader(dataset, num_workers=4)


def make_plain_loader(dataset, num_workers=4):
    # Iterated every epoch by plain.py, a caller without any torch import, which the project pass does
    # not read for iterations.
    return DataLoader(dataset, num_workers=num_workers)
