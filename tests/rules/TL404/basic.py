# torchlint-test: select=TL404
import torch
import torch.nn as nn

model = nn.Sequential(nn.Conv2d(3, 64, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU()).cuda()
for x, y in loader:  # error: [TL404]
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
