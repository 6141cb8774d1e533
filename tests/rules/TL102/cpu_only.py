# torchlint-test: select=TL102
# A script that never uses a GPU: a mask reads host memory.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

model = nn.Linear(32, 8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=64)

for x, y in loader:
    out = model(x)
    loss = nn.functional.cross_entropy(out, y)
    valid = out[out > 0]
    if loss > 10:
        break
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
