# torchlint-test: select=TL101
# `torch.device(f"cuda:{rank}")` makes a CUDA script.
import os

import torch

rank = int(os.environ["LOCAL_RANK"])
device = torch.device(f"cuda:{rank}")


def train(model, loader, optimizer):
    for x, y in loader:
        loss = (model(x.to(device)) - y.to(device)).pow(2).mean()
        loss.backward()
        optimizer.step()
        print(loss.item())  # error: [TL101]
