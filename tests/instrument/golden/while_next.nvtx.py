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
    with tl_nvtx("train_step"):  # torchlint: instrument indent=4
        with tl_nvtx("data_preprocess"):  # torchlint: instrument indent=4
            x, y = next(iterator)
        with tl_nvtx("forward"):  # torchlint: instrument dedent indent=4
            pred = model(x)
        with tl_nvtx("loss_compute"):  # torchlint: instrument dedent indent=4
            loss = loss_fn(pred, y)
        with tl_nvtx("optimizer_step"):  # torchlint: instrument dedent indent=4
            optimizer.zero_grad()
        with tl_nvtx("backward"):  # torchlint: instrument dedent indent=4
            loss.backward()
        with tl_nvtx("optimizer_step"):  # torchlint: instrument dedent indent=4
            optimizer.step()
        # torchlint: instrument dedent
        step += 1
    # torchlint: instrument dedent
print("done", step)
