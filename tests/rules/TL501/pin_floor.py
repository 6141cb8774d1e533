# torchlint-test: select=TL501 pin=>=1.13,<2.3
# The pin allows 2.0 to 2.2: fused Adam exists there, fused SGD (2.3) does not.
import torch

model = torch.nn.Linear(10, 10).cuda()
a = torch.optim.SGD(model.parameters(), lr=0.1, foreach=False)
b = torch.optim.Adam(model.parameters(), foreach=False)  # error: [TL501]
