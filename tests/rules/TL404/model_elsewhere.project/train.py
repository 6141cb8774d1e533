# torchlint-test: select=TL404
# The convolutions are in the model's module: the training loop is reported.
import torch

from net import Net

model = Net().cuda()
for x, y in loader:  # error: [TL404]
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
