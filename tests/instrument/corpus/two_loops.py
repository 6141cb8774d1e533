import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.Linear(4, 2)
pretrain_loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 2)), batch_size=4)
finetune_loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 2)), batch_size=4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

# Pre-training.
for x, y in pretrain_loader:
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

# Fine-tuning: the loop to profile.
for x, y in finetune_loader:
    loss = nn.functional.l1_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
