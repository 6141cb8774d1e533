# torchlint-test: select=TL102
import torch


def train_one_epoch(model, loader, optimizer):
    for x, y in loader:
        loss = (model(x) - y).pow(2)
        kept = loss[loss > 0.1]
        if kept.mean() > 1:
            continue
        loss.mean().backward()
        optimizer.step()
