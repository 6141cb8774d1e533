# torchlint-test: select=TL501 target-torch=2.3
# LARS of lars.py updates the parameters one at a time: reported at the training step's calls of it.
import torch

from lars import LARS, Unused
from sam import SAM


def train(model, loader):
    optimizer = LARS(model.parameters())
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()  # error: [TL501]


def train_amp(model, loader):
    optimizer = LARS(model.parameters())
    scaler = torch.cuda.amp.GradScaler()
    for x, y in loader:
        loss = model(x.cuda()).sum()
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # error: [TL501]
        scaler.update()


def train_sam(model, loader):
    optimizer = SAM(model.parameters(), torch.optim.SGD, lr=0.1)
    for x, y in loader:
        model(x.cuda()).sum().backward()
        optimizer.first_step(zero_grad=True)  # error: [TL501]
        model(x.cuda()).sum().backward()
        optimizer.second_step(zero_grad=True)
    # Outside the training step: not reported.
    optimizer.first_step()


def evaluate(model, loader):
    # Constructed, never stepped by a training step.
    optimizer = Unused(model.parameters())
    for x, y in loader:
        model(x.cuda())
    return optimizer
