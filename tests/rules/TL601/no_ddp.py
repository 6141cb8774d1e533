# torchlint-test: select=TL601
# Accumulation on one process: nothing to all-reduce.
import torch


def train(model, loader, optimizer):
    for i, (x, y) in enumerate(loader):
        loss = model(x.cuda()).sum() / 4
        loss.backward()
        if (i + 1) % 4 == 0:
            optimizer.step()
            optimizer.zero_grad()
