# torchlint-test: select=TL502 pin=>=1.8,<2
# `<2` allows only 1.x, which has no torch.compile: silent.
import torch


def train(model, loader, optimizer):
    model = model.cuda()
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
