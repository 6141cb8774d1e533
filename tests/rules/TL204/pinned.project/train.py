# torchlint-test: select=TL204
# The loader comes from data.py: its `pin_memory` is not known here, so the copies are not reported.
import torch

from data import build_loader

loader = build_loader(dataset)
for epoch in range(3):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        local = torch.utils.data.DataLoader(dataset, pin_memory=True)
