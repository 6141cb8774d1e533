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
        with tl_nvtx("train_step main_guard.py:13-28"):  # torchlint: instrument indent=4
            with tl_nvtx("other main_guard.py:16-16"):  # torchlint: instrument indent=4
                x, y = batch  # unpack
            # torchlint: instrument dedent

            with tl_nvtx("forward main_guard.py:20-20"):  # torchlint: instrument indent=4
                out = net(x)
            with tl_nvtx("loss_compute main_guard.py:22-22"):  # torchlint: instrument dedent indent=4
                loss = nn.functional.mse_loss(out, y)
            with tl_nvtx("optimizer_step main_guard.py:24-24"):  # torchlint: instrument dedent indent=4
                opt.zero_grad()
            with tl_nvtx("backward main_guard.py:26-26"):  # torchlint: instrument dedent indent=4
                loss.backward()
            with tl_nvtx("optimizer_step main_guard.py:28-28"):  # torchlint: instrument dedent indent=4
                opt.step()  # the update
        # torchlint: instrument dedent dedent
    print("finished")
