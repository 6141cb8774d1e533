# torchlint-test: select=TL405
# Conv layers that are not directly followed by a batch norm, or have no bias.
import torch.nn as nn

a = nn.Sequential(nn.Conv2d(3, 64, 3), nn.ReLU(), nn.BatchNorm2d(64))
b = nn.Sequential(nn.Conv2d(3, 64, 3, bias=False), nn.BatchNorm2d(64))
c = nn.Sequential(nn.Conv2d(3, 64, 3, 1, 0, 1, 1, False), nn.BatchNorm2d(64))
d = nn.ModuleList([nn.Conv2d(3, 64, 3), nn.BatchNorm2d(64)])
e = nn.Sequential(nn.Conv2d(3, 64, 3), nn.Dropout(0.1), nn.BatchNorm2d(64))
f = nn.Sequential(nn.Conv2d(3, 64, 3), nn.LayerNorm(64))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, 3)
        self.bn = nn.BatchNorm2d(64)
        self.act = nn.ReLU()

    def forward(self, x):
        x = self.conv(x)
        x = self.act(x)
        return self.bn(x)
