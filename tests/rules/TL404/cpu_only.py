# torchlint-test: select=TL404
import torch

model = torch.nn.Conv2d(3, 64, 3)
for x, y in loader:
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
