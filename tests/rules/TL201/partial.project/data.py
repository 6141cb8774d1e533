# torchlint-test: select=TL201
# The worker counts are parameters that train.py fills: through `functools.partial`, or by a direct call
# of a static method.
from torch.utils.data import DataLoader


class Task:
    @staticmethod
    def iter_batches(batch_size, device, num_workers=0, **dataset_kwargs):
        loader = DataLoader(make_dataset(**dataset_kwargs), batch_size=batch_size, num_workers=num_workers)  # error: [TL201]
        for x, y in loader:
            yield x.to(device), y.to(device)

    @staticmethod
    def iter_positional(batch_size, device, num_workers=4):
        loader = DataLoader(make_dataset(), batch_size=batch_size, num_workers=num_workers)  # error: [TL201]
        for x, y in loader:
            yield x.to(device), y.to(device)

    # Look-alikes.
    @staticmethod
    def iter_workers(batch_size, num_workers=0, **dataset_kwargs):
        # The partial sets num_workers=4.
        loader = DataLoader(make_dataset(**dataset_kwargs), batch_size=batch_size, num_workers=num_workers)
        for x in loader:
            yield x

    @staticmethod
    def iter_overridden(batch_size, num_workers=0):
        # The partial's 0 is replaced where it is called.
        loader = DataLoader(make_dataset(), batch_size=batch_size, num_workers=num_workers)
        for x in loader:
            yield x

    @staticmethod
    def iter_unbound(batch_size, num_workers=0):
        # The partial leaves num_workers to whoever calls it, and hands itself on.
        loader = DataLoader(make_dataset(), batch_size=batch_size, num_workers=num_workers)
        for x in loader:
            yield x
