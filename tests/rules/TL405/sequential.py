# torchlint-test: select=TL405
# Conv layers with a bias followed by a batch norm in nn.Sequential, and the look-alikes.
import torch
from torch import nn

stem = nn.Sequential(
    nn.Conv2d(3, 64, 7, stride=2, padding=3),  # error: [TL405]
    nn.BatchNorm2d(64),
    nn.ReLU(inplace=True),
)
explicit = nn.Sequential(nn.Conv1d(16, 32, 3, bias=True), nn.BatchNorm1d(32))  # error: [TL405]
volumes = torch.nn.Sequential(torch.nn.Conv3d(1, 8, 3), torch.nn.SyncBatchNorm(8))  # error: [TL405]
listed = nn.Sequential(*[nn.Conv2d(8, 8, 3), nn.BatchNorm2d(8)])  # error: [TL405]

conv = nn.Conv2d(8, 16, 3, padding=1)  # error: [TL405]
named = nn.Sequential(conv, nn.BatchNorm2d(16), nn.ReLU())


def make_layers(cfg):
    layers = []
    in_channels = 3
    for v in cfg:
        conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)  # error: [TL405]
        layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
        in_channels = v
    return nn.Sequential(*layers)


# Look-alikes: no bias, a ReLU in between, an unknown bias, a norm that is not a batch norm.
no_bias = nn.Sequential(nn.Conv2d(3, 64, 3, bias=False), nn.BatchNorm2d(64))
relu_first = nn.Sequential(nn.Conv2d(3, 64, 3), nn.ReLU(), nn.BatchNorm2d(64))
unknown = nn.Sequential(nn.Conv2d(3, 64, 3, bias=use_bias), nn.BatchNorm2d(64))
group_norm = nn.Sequential(nn.Conv2d(3, 64, 3), nn.GroupNorm(8, 64))
bn_first = nn.Sequential(nn.BatchNorm2d(3), nn.Conv2d(3, 64, 3))
linear = nn.Sequential(nn.Linear(3, 64), nn.BatchNorm1d(64))
