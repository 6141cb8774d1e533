# torchlint-test: select=TL101
# `.to(local_rank)`: an integer device is a CUDA device.
import os

import torch

local_rank = int(os.environ["LOCAL_RANK"])


def train(model, loader, optimizer):
    model = model.to(local_rank)
    for x, y in loader:
        loss = (model(x.to(local_rank)) - y.to(local_rank)).pow(2).mean()
        loss.backward()
        optimizer.step()
        print(loss.item())  # error: [TL101]
