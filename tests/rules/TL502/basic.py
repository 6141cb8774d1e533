# torchlint-test: select=TL502 target-torch=2.4
import torch


def train(model, loader, optimizer):
    model = model.cuda()
    for x, y in loader:  # error: [TL502]
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
