# torchlint-test: select=TL501 target-torch=2.3 unsafe-fixes
import torch

NO_FOREACH = False
model = torch.nn.Linear(10, 10).cuda()
a = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)  # error: [TL501]
b = torch.optim.AdamW(model.parameters(), foreach=NO_FOREACH)  # error: [TL501]
c = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, foreach=False)  # error: [TL501]


def train(loader, lr):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():  # error: [TL501]
                p -= lr * p.grad
