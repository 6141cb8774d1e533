# torchlint-test: select=TL404
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(100, 256), nn.ReLU(), nn.Linear(256, 784))

    def forward(self, z):
        return self.fc(z)
