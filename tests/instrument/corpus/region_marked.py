import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

prof = "a name the script already uses"
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 1)), batch_size=4)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    # torchlint: profile-off
    total = sum(p.detach().abs().sum() for p in model.parameters())
    # torchlint: profile-on
    optimizer.step()
    optimizer.zero_grad()
print(prof)
