import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import contextlib  # torchlint: instrument

dataset = TensorDataset(torch.randn(96, 8), torch.randn(96, 1))
loader = DataLoader(dataset, batch_size=8)
model = nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss()

iterator = iter(loader)
step = 0
tl_nvtx = torch.cuda.nvtx.range if torch.cuda.is_available() else contextlib.nullcontext  # torchlint: instrument
while step < 12:
    with tl_nvtx("train_step while_next.py:15-30"):  # torchlint: instrument indent=4
        with tl_nvtx("data_preprocess while_next.py:18-18"):  # torchlint: instrument indent=4
            x, y = next(iterator)
        with tl_nvtx("forward while_next.py:20-20"):  # torchlint: instrument dedent indent=4
            pred = model(x)
        with tl_nvtx("loss_compute while_next.py:22-22"):  # torchlint: instrument dedent indent=4
            loss = loss_fn(pred, y)
        with tl_nvtx("optimizer_step while_next.py:24-24"):  # torchlint: instrument dedent indent=4
            optimizer.zero_grad()
        with tl_nvtx("backward while_next.py:26-26"):  # torchlint: instrument dedent indent=4
            loss.backward()
        with tl_nvtx("optimizer_step while_next.py:28-28"):  # torchlint: instrument dedent indent=4
            optimizer.step()
        with tl_nvtx("other while_next.py:30-30"):  # torchlint: instrument dedent indent=4
            step += 1
    # torchlint: instrument dedent dedent
print("done", step)
