# torchlint-test: select=TL204
# The loader reaches the copy through a parameter, an attribute, tqdm and next(); a dict batch.
import torch
from torch.utils.data import DataLoader
from tqdm import tqdm


def train(model, loader, device):
    for batch in tqdm(loader):
        images = batch["image"].to(device, non_blocking=True)  # error: [TL204]
        model(images)


class Trainer:
    def __init__(self, dataset):
        self.loader = DataLoader(dataset, batch_size=8, num_workers=2, pin_memory=True)

    def fit(self, model):
        it = iter(self.loader)
        x, y = next(it)
        x = x.cuda(non_blocking=True)  # error: [TL204]
        for i, (a, b) in enumerate(self.loader):
            idx = torch.tensor(i).cuda()
            a = a.cuda(non_blocking=True)  # error: [TL204]


def main(dataset, model):
    pinned = DataLoader(dataset, batch_size=8, pin_memory=True)
    train(model, pinned, "cuda")


def step(model, batch):
    x, y = batch
    return model(x.cuda(non_blocking=True)), y.cuda(non_blocking=True)  # error: [TL204, TL204]


def fit(model, dataset):
    loader = DataLoader(dataset, batch_size=8, pin_memory=True)
    for batch in loader:
        step(model, batch)


def walk(loader, batch):
    batch.cuda()
    return walk(loader, batch)
