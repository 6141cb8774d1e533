# torchlint-test: select=TL204
# The loader comes from a function of the file that returns it, reaches a class through its
# constructor, is rebuilt when its iterator runs out, or is pinned only on the GPU path through a
# `**kwargs` dict (a conditional literal, or one `update`d from another); batches moved element by
# element in a comprehension.
import torch
from torch.utils.data import DataLoader

use_cuda = torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")


def prepare_dataloader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, pin_memory=True)


class Trainer:
    def __init__(self, model, train_data):
        self.model = model
        self.train_data = train_data

    def run_epoch(self):
        for source, targets in self.train_data:
            source = source.to(device, non_blocking=True)  # error: [TL204]
            self.model(source, targets.to(device, non_blocking=True))  # error: [TL204]


def main(dataset, model):
    train_data = prepare_dataloader(dataset, 32)
    Trainer(model, train_data).run_epoch()


def forever(model, dataset):
    loader = DataLoader(dataset, batch_size=8, pin_memory=True)
    data_iter = iter(loader)
    while True:
        try:
            batch = next(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            batch = next(data_iter)
        batch = [t.to(device, non_blocking=True) for t in batch]  # error: [TL204]
        model(*batch)


kwargs = {"num_workers": 1, "pin_memory": True} if use_cuda else {}
gpu_loader = DataLoader(dataset, batch_size=8, **kwargs)
for x, y in gpu_loader:
    x = x.to(device, non_blocking=True)  # error: [TL204]

train_kwargs = {"batch_size": 64}
if use_cuda:
    train_kwargs.update({"num_workers": 1, "pin_memory": True})
updated_loader = DataLoader(dataset, **train_kwargs)
for x, y in updated_loader:
    x = x.to(device, non_blocking=True)  # error: [TL204]
