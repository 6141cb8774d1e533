#!/usr/bin/env python3
# A loop directly under the main guard, with comments and a blank line inside.
import torch
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.randn(40, 4), torch.randn(40, 2)), batch_size=4)
    net = nn.Linear(4, 2)
    opt = optim.SGD(net.parameters(), lr=0.1)
    for batch in loader:
        x, y = batch  # unpack

        out = net(x)
        loss = nn.functional.mse_loss(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()  # the update
    print("finished")
