import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import contextlib  # torchlint: instrument

loader = DataLoader(TensorDataset(torch.randn(48, 4), torch.randn(48, 1)), batch_size=4)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

tl_nvtx = torch.cuda.nvtx.range if torch.cuda.is_available() else contextlib.nullcontext  # torchlint: instrument
for step, (x, y) in enumerate(loader):
    with tl_nvtx("train_step continue_path.py:11-29"):  # torchlint: instrument indent=4
        with tl_nvtx("other continue_path.py:14-18"):  # torchlint: instrument indent=4
            if step % 5 == 4:
                continue  # skip every fifth batch
            for p in model.parameters():
                if p.grad is None:
                    continue  # belongs to the inner loop
        with tl_nvtx("loss_compute continue_path.py:20-20"):  # torchlint: instrument dedent indent=4
            loss = nn.functional.mse_loss(model(x), y)
        with tl_nvtx("optimizer_step continue_path.py:22-22"):  # torchlint: instrument dedent indent=4
            optimizer.zero_grad()
        with tl_nvtx("backward continue_path.py:24-24"):  # torchlint: instrument dedent indent=4
            loss.backward()
        with tl_nvtx("optimizer_step continue_path.py:26-26"):  # torchlint: instrument dedent indent=4
            optimizer.step()
        with tl_nvtx("other continue_path.py:28-29"):  # torchlint: instrument dedent indent=4
            if step > 100:
                break
    # torchlint: instrument dedent dedent
