# torchlint-test: select=TL501 target-torch=2.3
# Not reported: default optimizers, foreach=True, fused already, another library's Adam, an unknown
# flag, and loops over the parameters that do not update them or run once.
import torch
from apex.optimizers import FusedAdam as Adam

model = torch.nn.Linear(10, 10).cuda()
a = torch.optim.Adam(model.parameters(), lr=1e-3)
b = torch.optim.AdamW(model.parameters(), foreach=True)
c = torch.optim.AdamW(model.parameters(), fused=True, foreach=False)
d = Adam(model.parameters(), foreach=False)
e = torch.optim.SGD(model.parameters(), foreach=flag)

for p in model.parameters():
    p.data.add_(p.grad)


def train(loader, optimizer):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        total = 0.0
        for p in model.parameters():
            total += p.grad.norm()
            p.grad.zero_()
        for p in model.parameters():
            p.requires_grad = False
        optimizer.step()
