# torchlint-test: select=TL405
import torch.nn as nn

block = nn.Sequential(nn.Conv2d(3, 64, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU())  # error: [TL405]
block2 = nn.Sequential(nn.Conv2d(64, 64, 3, bias=False), nn.BatchNorm2d(64))  # error: [TL405]
