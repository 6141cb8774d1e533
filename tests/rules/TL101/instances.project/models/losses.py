# torchlint-test: select=TL101
from torch import nn


class LossBase(nn.Module):
    pass


class QuietLoss(nn.Module):
    # No sync on any call: calling it is silent.
    def forward(self, outputs, targets):
        return (outputs - targets).pow(2).mean()
