# torchlint-test: select=TL406
# fp32 training (TL402's) or a model without 2-D convolutions: not reported.
import torch
import torch.nn as nn

model = nn.Conv2d(3, 64, 3).cuda()
for x, y in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
