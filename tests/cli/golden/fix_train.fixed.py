import torch
from torch import nn
from torch.utils.data import DataLoader

device = torch.device("cuda")
model = nn.Sequential(nn.Linear(784, 1000), nn.ReLU(), nn.Linear(1000, 10)).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=64, shuffle=True, pin_memory=True)

for epoch in range(10):
    for x, y in loader:
        optimizer.zero_grad(set_to_none=False)
        loss = nn.functional.cross_entropy(model(x.to(device, non_blocking=True)), y.to(device, non_blocking=True))
        loss.backward()
        optimizer.step()
        print(f"loss {loss.item():.3f}")
