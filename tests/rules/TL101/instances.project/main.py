# A DETR-shaped project: the criterion is built by a factory of models/ (returned in a tuple), the
# loss scaler here; engine.py only receives them as parameters.
import argparse

import torch
from torch import nn

from engine import evaluate, train_one_epoch
from models import build_model
from models.losses import QuietLoss
from util.meters import Meter

parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda")
args = parser.parse_args()
device = torch.device(args.device)
model, criterion, postprocessors = build_model(args)
model = model.to(device)
optimizer = torch.optim.AdamW(model.parameters())
for epoch in range(10):
    train_one_epoch(model, criterion, QuietLoss(), nn.CrossEntropyLoss(), loader, optimizer, device, Meter())
    evaluate(model, criterion, QuietLoss(), loader, device)
    evaluate(model, QuietLoss(), criterion, loader, device)
