import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import contextlib  # torchlint: instrument

prof = "a name the script already uses"
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 1)), batch_size=4)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
tl_nvtx = torch.cuda.nvtx.range if torch.cuda.is_available() else contextlib.nullcontext  # torchlint: instrument
for x, y in loader:
    with tl_nvtx("train_step region_marked.py:11-25"):  # torchlint: instrument indent=4
        with tl_nvtx("loss_compute region_marked.py:14-14"):  # torchlint: instrument indent=4
            loss = nn.functional.mse_loss(model(x), y)
        with tl_nvtx("backward region_marked.py:16-16"):  # torchlint: instrument dedent indent=4
            loss.backward()
        # torchlint: instrument dedent
        # torchlint: profile-off
        with tl_nvtx("other region_marked.py:20-20"):  # torchlint: instrument indent=4
            total = sum(p.detach().abs().sum() for p in model.parameters())
        # torchlint: instrument dedent
        # torchlint: profile-on
        with tl_nvtx("optimizer_step region_marked.py:24-25"):  # torchlint: instrument indent=4
            optimizer.step()
            optimizer.zero_grad()
    # torchlint: instrument dedent dedent
print(prof)
