import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import contextlib  # torchlint: instrument

loader = DataLoader(TensorDataset(torch.randn(16, 2), torch.randn(16, 1)), batch_size=4)
model = nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
tl_nvtx = torch.cuda.nvtx.range if torch.cuda.is_available() else contextlib.nullcontext  # torchlint: instrument
for x, y in loader:
    with tl_nvtx("train_step no_final_newline.py:10-19"):  # torchlint: instrument indent=4
        with tl_nvtx("loss_compute no_final_newline.py:13-13"):  # torchlint: instrument indent=4
            loss = nn.functional.mse_loss(model(x), y)
        with tl_nvtx("optimizer_step no_final_newline.py:15-15"):  # torchlint: instrument dedent indent=4
            optimizer.zero_grad()
        with tl_nvtx("backward no_final_newline.py:17-17"):  # torchlint: instrument dedent indent=4
            loss.backward()
        with tl_nvtx("optimizer_step no_final_newline.py:19-19"):  # torchlint: instrument dedent indent=4
            optimizer.step()
    # torchlint: instrument dedent dedent