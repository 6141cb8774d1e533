# torchlint-test: select=TL203
import os

import torch

import loaders
from loaders import make_eval_loader, make_train_loader


def train_one_epoch(loader):
    for batch in loader:
        step(batch)


train_loader = make_train_loader(train_set, batch_size=64, num_workers=4)
default_loader = loaders.make_default_loader(train_set)
train_part, val_part = loaders.make_loaders(train_set, 4)
eval_loader = make_eval_loader(val_set, num_workers=4)
kept = loaders.make_kept_loader(train_set, num_workers=4, persistent_workers=True)
zero = loaders.make_zero_loader(train_set, num_workers=0)
unknown = loaders.make_unknown_loader(train_set, num_workers=os.environ["WORKERS"])
for epoch in range(10):
    train_one_epoch(train_loader)
    for batch in default_loader:
        step(batch)
    for batch in train_part:
        step(batch)
    for batch in kept:
        step(batch)
    for batch in zero:
        step(batch)
    for batch in unknown:
        step(batch)
    fresh = loaders.make_fresh_loader(train_set)
    for batch in fresh:
        step(batch)
for batch in eval_loader:
    step(batch)
for batch in val_part:
    step(batch)
