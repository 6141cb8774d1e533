# A DETR-shaped project: the device comes from an argparse default here, the loop is in engine.py,
# the helpers that sync are in util/misc.py and the loader is built in data/loaders.py.
import argparse

import torch

from data.loaders import build_loader
from engine import train_one_epoch

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda")
args = parser.parse_args()
device = torch.device(args.device)
model = torch.nn.Linear(8, 8).to(device)
optimizer = torch.optim.AdamW(model.parameters())
loader = build_loader()
for epoch in range(10):
    train_one_epoch(model, loader, optimizer, device)
