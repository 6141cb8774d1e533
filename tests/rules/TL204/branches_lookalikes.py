# torchlint-test: select=TL204
# Look-alikes of branches.py: a helper also called with an unpinned loader, and a copy in the same
# branch after the batch was moved.
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")


def run_validate(model, loader):
    for images, target in loader:
        model(images.to(device))


def validate(model, val_set, rest_set):
    run_validate(model, DataLoader(val_set, batch_size=8, pin_memory=True))
    run_validate(model, DataLoader(rest_set, batch_size=8))


def train(model, train_set, gpu):
    for images, target in DataLoader(train_set, batch_size=8, pin_memory=True):
        if gpu is not None:
            images = images.cuda(gpu, non_blocking=True)
            model(images.to(device))
