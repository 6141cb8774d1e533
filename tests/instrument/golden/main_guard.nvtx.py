#!/usr/bin/env python3
# A loop directly under the main guard, with comments and a blank line inside.
import torch
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset
import contextlib  # torchlint: instrument

if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.randn(40, 4), torch.randn(40, 2)), batch_size=4)
    net = nn.Linear(4, 2)
    opt = optim.SGD(net.parameters(), lr=0.1)
    tl_nvtx = torch.cuda.nvtx.range if torch.cuda.is_available() else contextlib.nullcontext  # torchlint: instrument
    for batch in loader:
        with tl_nvtx("train_step"):  # torchlint: instrument indent=4
            x, y = batch  # unpack

            with tl_nvtx("forward"):  # torchlint: instrument indent=4
                out = net(x)
            with tl_nvtx("loss_compute"):  # torchlint: instrument dedent indent=4
                loss = nn.functional.mse_loss(out, y)
            with tl_nvtx("optimizer_step"):  # torchlint: instrument dedent indent=4
                opt.zero_grad()
            with tl_nvtx("backward"):  # torchlint: instrument dedent indent=4
                loss.backward()
            with tl_nvtx("optimizer_step"):  # torchlint: instrument dedent indent=4
                opt.step()  # the update
        # torchlint: instrument dedent dedent
    print("finished")
