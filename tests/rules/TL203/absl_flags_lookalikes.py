# torchlint-test: select=TL203
# A DEFINE_integer that is not absl's defines no option: `FLAGS.num_workers` stays unknown.
import torch
from torch.utils.data import DataLoader

from myflags import DEFINE_integer, FLAGS

DEFINE_integer("num_workers", 4)


def infiniteloop(dataloader):
    while True:
        for x, y in iter(dataloader):
            yield x


def train(dataset, model, optimizer):
    dataloader = DataLoader(dataset, batch_size=8, num_workers=FLAGS.num_workers)
    datalooper = infiniteloop(dataloader)
    for step in range(1000):
        optimizer.zero_grad()
        model(next(datalooper).cuda()).mean().backward()
        optimizer.step()
