import torch
from torch import nn

model = nn.Linear(4, 2)
x = torch.randn(8, 4)
print(model(x).sum())
