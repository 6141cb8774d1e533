# torchlint-test: select=TL401 min-dim=16
from torch import nn

layer = nn.Linear(20, 30)  # error: [TL401, TL401]
tiny = nn.Linear(3, 10)
