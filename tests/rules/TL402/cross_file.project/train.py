# torchlint-test: select=TL402
# The autocast context comes from another module of the project: not reported here.
import torch

from amp_utils import autocast_ctx


def train(model, loader, optimizer):
    model.cuda()
    for x, y in loader:
        with autocast_ctx():
            loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
