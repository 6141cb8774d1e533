# torchlint-test: select=TL501 target-torch=2.2
# Fused SGD arrived in PyTorch 2.3: before it, SGD(foreach=False) has no fused alternative. Adam has.
import torch

model = torch.nn.Linear(10, 10).cuda()
a = torch.optim.SGD(model.parameters(), lr=0.1, foreach=False)
b = torch.optim.Adam(model.parameters(), foreach=False)  # error: [TL501]
