# torchlint-test: select=TL404
# The star-imported model module has Linear layers only: no convolution, nothing to report.
import torch

from models import *

generator = Generator().cuda()
for epoch in range(10):
    for z, _ in loader:
        loss = generator(z.cuda()).sum()
        loss.backward()
        optimizer.step()
