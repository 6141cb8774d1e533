# No select in the header: TL502 is off by default, so this uncompiled CUDA training loop reports nothing.
import torch


def train(model, loader, optimizer):
    model = model.cuda()
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
