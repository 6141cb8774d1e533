# No select in the header: TL502 is off by default, so this uncompiled CUDA training loop reports nothing
# (it trains under autocast, so the precision rules have nothing to say either).
import torch


def train(model, loader, optimizer):
    model = model.cuda()
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
