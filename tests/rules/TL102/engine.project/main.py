# The device comes from an argparse default here; the step loop, with its masks, is in engine.py.
import argparse

import torch

from engine import train_one_epoch

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda")
args = parser.parse_args()
device = torch.device(args.device)
model = torch.nn.Linear(8, 8).to(device)
optimizer = torch.optim.AdamW(model.parameters())
for epoch in range(10):
    train_one_epoch(model, loader, optimizer, device)
