# torchlint-test: select=TL405
# The file reads `.bias`: the fix is unsafe and not applied without unsafe-fixes.
import torch.nn as nn

block = nn.Sequential(nn.Conv2d(3, 64, 3), nn.BatchNorm2d(64))  # error: [TL405]
for m in block.modules():
    if isinstance(m, nn.Conv2d):
        nn.init.zeros_(m.bias)
