# torchlint-test: select=TL404
import torch
import torch.nn as nn

torch.backends.cudnn.benchmark = True
model = nn.Conv2d(3, 64, 3).cuda()
for x, y in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
