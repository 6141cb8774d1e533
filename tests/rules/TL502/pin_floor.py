# torchlint-test: select=TL502 pin=>=1.8
# An old floor with no upper bound allows PyTorch 2.x, which has torch.compile.
import torch


def train(model, loader, optimizer):
    model = model.cuda()
    for x, y in loader:  # error: [TL502]
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
