# torchlint-test: select=TL406
# A conv net class that only another file constructs (`super().__init__()` does not name it): the import
# makes the project a conv net.
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3)
        self.conv2 = nn.Conv2d(16, 32, 3)

    def forward(self, x):
        return self.conv2(self.conv1(x))
