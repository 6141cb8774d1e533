# torchlint-test: select=TL404
# The layers come from parts.py through a star import: the model is convolutional.
import torch.nn as nn

from .parts import *


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = Down(3, 64)

    def forward(self, x):
        return self.down(x)
