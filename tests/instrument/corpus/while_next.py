import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.randn(96, 8), torch.randn(96, 1))
loader = DataLoader(dataset, batch_size=8)
model = nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss()

iterator = iter(loader)
step = 0
while step < 12:
    x, y = next(iterator)
    pred = model(x)
    loss = loss_fn(pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    step += 1
print("done", step)
