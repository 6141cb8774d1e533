# torchlint-test: select=TL404
# The model is re-exported by the package, whose module star-imports its convolutional parts.
import torch

from net import Net

model = Net().cuda()
for x, y in loader:  # error: [TL404]
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
