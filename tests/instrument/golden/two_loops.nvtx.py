import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import contextlib  # torchlint: instrument

model = nn.Linear(4, 2)
pretrain_loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 2)), batch_size=4)
finetune_loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 2)), batch_size=4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

# Pre-training.
for x, y in pretrain_loader:
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

# Fine-tuning: the loop to profile.
tl_nvtx = torch.cuda.nvtx.range if torch.cuda.is_available() else contextlib.nullcontext  # torchlint: instrument
for x, y in finetune_loader:
    with tl_nvtx("train_step two_loops.py:20-29"):  # torchlint: instrument indent=4
        with tl_nvtx("loss_compute two_loops.py:23-23"):  # torchlint: instrument indent=4
            loss = nn.functional.l1_loss(model(x), y)
        with tl_nvtx("optimizer_step two_loops.py:25-25"):  # torchlint: instrument dedent indent=4
            optimizer.zero_grad()
        with tl_nvtx("backward two_loops.py:27-27"):  # torchlint: instrument dedent indent=4
            loss.backward()
        with tl_nvtx("optimizer_step two_loops.py:29-29"):  # torchlint: instrument dedent indent=4
            optimizer.step()
    # torchlint: instrument dedent dedent
