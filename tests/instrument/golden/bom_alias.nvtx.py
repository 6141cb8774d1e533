"""A UTF-8 file with a byte order mark that imports torch under an alias only: été."""
import torch as th
import torch  # torchlint: instrument
from torch.utils.data import DataLoader, TensorDataset
import contextlib  # torchlint: instrument

loader = DataLoader(TensorDataset(th.randn(24, 3), th.randn(24, 1)), batch_size=4)
model = th.nn.Linear(3, 1)
optimizer = th.optim.SGD(model.parameters(), lr=0.1)
tl_nvtx = torch.cuda.nvtx.range if torch.cuda.is_available() else contextlib.nullcontext  # torchlint: instrument
for x, y in loader:
    with tl_nvtx("train_step bom_alias.py:11-20"):  # torchlint: instrument indent=4
        with tl_nvtx("loss_compute bom_alias.py:14-14"):  # torchlint: instrument indent=4
            loss = th.nn.functional.mse_loss(model(x), y)
        with tl_nvtx("optimizer_step bom_alias.py:16-16"):  # torchlint: instrument dedent indent=4
            optimizer.zero_grad()
        with tl_nvtx("backward bom_alias.py:18-18"):  # torchlint: instrument dedent indent=4
            loss.backward()
        with tl_nvtx("optimizer_step bom_alias.py:20-20"):  # torchlint: instrument dedent indent=4
            optimizer.step()
    # torchlint: instrument dedent dedent
