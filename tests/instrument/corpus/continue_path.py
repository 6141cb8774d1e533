import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(48, 4), torch.randn(48, 1)), batch_size=4)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for step, (x, y) in enumerate(loader):
    if step % 5 == 4:
        continue  # skip every fifth batch
    for p in model.parameters():
        if p.grad is None:
            continue  # belongs to the inner loop
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step > 100:
        break
