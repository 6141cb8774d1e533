# torchlint-test: select=TL402
# Not imported by the others and imports nothing of the project: its own component, in fp32.
import torch


def train(model, loader, optimizer):
    model.cuda()
    for x, y in loader:  # error: [TL402]
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
