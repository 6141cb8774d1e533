"""A UTF-8 file with a byte order mark that imports torch under an alias only: été."""
import torch as th
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(th.randn(24, 3), th.randn(24, 1)), batch_size=4)
model = th.nn.Linear(3, 1)
optimizer = th.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = th.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
