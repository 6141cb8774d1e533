# torchlint-test: select=TL203
import argparse

import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=8)
args = parser.parse_args()

train_loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4)  # error: [TL203]
val_loader = DataLoader(val_set, batch_size=64, num_workers=args.workers, persistent_workers=False)  # error: [TL203]
kept = DataLoader(train_set, batch_size=64, num_workers=4, persistent_workers=True)
test_loader = DataLoader(test_set, batch_size=64, num_workers=4)


def evaluate(model, loader):
    for x, y in loader:
        model(x)


def train_one_epoch(model, loader):
    for x, y in loader:
        model(x).sum().backward()


for epoch in range(10):
    train_one_epoch(model, train_loader)
    evaluate(model, val_loader)
    for x, y in kept:
        pass

# Once: a final test pass.
for x, y in test_loader:
    model(x)
