# torchlint-test: select=TL101
# `t.float()`, `t.int()`, `t.bool()` and `t.round()` convert a tensor and give a tensor, on the device it
# was on; the builtins `float(x)`, `int(x)` and `round(x)` of a Python number give a number.
import torch


def train(model, loader, criterion, optimizer):
    model = model.cuda()
    for step, (x, y) in enumerate(loader):
        out = model(x.cuda())
        loss = criterion(out, y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss = loss.float()
        print(loss.item())  # error: [TL101]
        hits = (out.argmax(1) == y.cuda()).int().sum()
        print(hits.tolist())  # error: [TL101]
        lr = float(optimizer.param_groups[0]["lr"])
        print(round(lr, 4), int(step))
