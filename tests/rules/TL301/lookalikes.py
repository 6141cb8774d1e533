# Look-alikes TL301 must not report (PyTorch 2.x, where a bare zero_grad() already sets grads to None):
# set_to_none=True, a value it cannot resolve, and functions that are only named zero_grad.
import torch


def zero_grad(model):
    for p in model.parameters():
        p.grad = None


def train(model, optimizer, loader, flag):
    for x, y in loader:
        loss = model(x).sum()
        optimizer.zero_grad(set_to_none=True)
        optimizer.zero_grad()
        optimizer.zero_grad(set_to_none=flag)
        zero_grad(model)
        loss.backward()
        optimizer.step()
