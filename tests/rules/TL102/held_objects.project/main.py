# torchlint-test: select=TL102
import argparse

import torch

from engine import evaluate, train_one_epoch
from models.criterion import build

parser = argparse.ArgumentParser()
parser.add_argument("--giou", type=float, default=2.0)
args = parser.parse_args()
model = torch.nn.Linear(4, 4).cuda()
criterion, plain = build(args)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
loader = torch.utils.data.DataLoader(list(range(8)), batch_size=2)
for epoch in range(10):
    train_one_epoch(model, criterion, plain, loader, optimizer)
    evaluate(model, loader)
