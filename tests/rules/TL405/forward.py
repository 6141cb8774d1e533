# torchlint-test: select=TL405
# Conv then batch norm in forward: nested calls and consecutive assignments.
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)  # error: [TL405]
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)  # error: [TL405]
        self.bn2 = nn.BatchNorm2d(cout)
        self.conv3 = nn.Conv2d(cout, cout, 1)
        self.act = nn.ReLU()
        self.conv4 = nn.Conv2d(cout, cout, 1, bias=False)
        self.bn4 = nn.BatchNorm2d(cout)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        y = self.conv2(x)
        y = self.bn2(y)
        z = self.conv3(y)
        z = self.act(z)
        return self.bn4(self.conv4(z))


class Other(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3)
        self.bn1 = nn.BatchNorm2d(8)

    def forward(self, x):
        # The conv's output reaches the norm only through an activation: not reported.
        return self.bn1(F.relu(self.conv1(x)))
