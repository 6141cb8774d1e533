# torchlint-test: select=TL406
import torch

from model import Net

device = torch.device("cuda")
model = Net().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler()


def train(loader):
    for x, y in loader:  # error: [TL406]
        with torch.autocast("cuda"):
            loss = model(x.to(device)).sum()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
