# torchlint-test: select=TL404
# benchmark = False on purpose, for reproducibility: not reported.
import torch
import torch.nn as nn

torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
model = nn.Conv2d(3, 64, 3).cuda()
for x, y in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
