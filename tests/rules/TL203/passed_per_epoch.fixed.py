# torchlint-test: select=TL203
# A loader handed to a function called once per epoch (the function may live in another file, as
# `engine.train_one_epoch` does in many projects) is iterated once per epoch.
import argparse

import torch
from torch.utils.data import DataLoader

from engine import evaluate, train_one_epoch

parser = argparse.ArgumentParser()
parser.add_argument("--num_workers", default=10, type=int)
args = parser.parse_args()

train_loader = DataLoader(range(8), batch_size=2, num_workers=args.num_workers, persistent_workers=True)  # error: [TL203]
val_loader = DataLoader(range(8), batch_size=2, num_workers=args.num_workers, persistent_workers=True)  # error: [TL203]
test_loader = DataLoader(range(8), batch_size=2, num_workers=args.num_workers)
kept_loader = DataLoader(range(8), batch_size=2, num_workers=4, persistent_workers=True)
serial_loader = DataLoader(range(8), batch_size=2, num_workers=0)


def validate(loader):
    return evaluate(loader)


for epoch in range(3):
    train_one_epoch(train_loader, epoch)
    validate(val_loader)
    train_one_epoch(kept_loader, epoch)
    train_one_epoch(serial_loader, epoch)
    print(epoch)

# Once, after the epochs: not restarted every epoch.
evaluate(test_loader)


def validate_rest(dataset):
    # Built on every call, and validate_rest runs every epoch: persistent workers would not survive it.
    rest_loader = DataLoader(dataset, batch_size=2, num_workers=4)
    evaluate(rest_loader)


for epoch in range(3):
    validate_rest(range(4))
