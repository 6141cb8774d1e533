# torchlint-test: select=TL502 target-torch=1.13
# torch.compile arrived in PyTorch 2.0.
import torch


def train(model, loader, optimizer):
    model = model.cuda()
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
