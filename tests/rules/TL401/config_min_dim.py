# torchlint-test: select=TL401 min-dim=128
# `min-dim` applies to values written in configs as to literals: 100 is below it, 1001 is not.
from dataclasses import dataclass

import torch.nn as nn


@dataclass
class HeadConfig:
    hidden: int = 100
    classes: int = 1001  # error: [TL401]


class Head(nn.Module):
    def __init__(self, config: HeadConfig):
        super().__init__()
        self.fc1 = nn.Linear(768, config.hidden)
        self.fc2 = nn.Linear(config.hidden, config.classes)
