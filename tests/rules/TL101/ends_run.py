# torchlint-test: select=TL101
# A branch that ends the run (`sys.exit`, `os._exit`, or a `raise` that no `try` of the function
# catches) runs at most once: its syncs are not per step. The condition itself still runs every step.
import math
import os
import sys

import torch


def train(model, loader, optimizer):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        if not math.isfinite(loss.item()):  # error: [TL101]
            print("Loss is {}, stopping training".format(loss.item()))
            sys.exit(1)
        if torch.isnan(loss):
            raise RuntimeError(f"loss is {loss.item()}")
        if loss > 1e6:
            print(loss.item())
            os._exit(2)
        loss.backward()
        optimizer.step()


def keeps_going(model, loader, optimizer, log):
    # A raise that the function catches, and a branch that only logs: every step.
    for x, y in loader:
        try:
            loss = model(x.cuda()).sum()
            if torch.isnan(loss):
                raise ValueError(f"loss is {loss.item()}")  # error: [TL101]
        except ValueError:
            continue
        if loss > 1e6:
            log(loss.item())  # error: [TL101]
        loss.backward()
        optimizer.step()


def exit(code):  # the file's own exit(): not the builtin
    print(code)


def shadowed(model, loader, optimizer):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        if loss > 1e6:
            print(loss.item())  # error: [TL101]
            exit(1)
        loss.backward()
        optimizer.step()
