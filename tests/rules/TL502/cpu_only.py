# torchlint-test: select=TL502 target-torch=2.4
# A CPU-only script: launch overhead on a GPU is not its problem.
import torch


def train(model, loader, optimizer):
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
