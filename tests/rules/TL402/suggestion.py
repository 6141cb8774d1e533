# torchlint-test: select=TL402
# The display-only suggestion wraps the forward pass and the loss; nothing is applied.
import torch


def train(model, loader, optimizer, criterion):
    model.cuda()
    for x, y in loader:  # error: [TL402]
        x, y = x.cuda(), y.cuda()
        out = model(x)
        loss = criterion(out, y)
        loss.backward()
        optimizer.step()
