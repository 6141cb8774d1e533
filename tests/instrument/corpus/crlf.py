import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(32, 5), torch.randn(32, 1)), batch_size=4)
model = nn.Linear(5, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    out = model(x)
    loss = nn.functional.mse_loss(out, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("crlf done")
