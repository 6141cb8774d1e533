# torchlint-test: select=TL602
import torch
import torch.nn as nn
from torch.nn import DataParallel as DP
from torch.nn.parallel import DataParallel

model = nn.Linear(10, 10)
a = nn.DataParallel(model).cuda()  # error: [TL602]
b = torch.nn.DataParallel(model, device_ids=[0, 1])  # error: [TL602]
c = DP(model)  # error: [TL602]
d = DataParallel(model)  # error: [TL602]
