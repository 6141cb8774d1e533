# torchlint-test: select=TL102,TL103
# No device in this file: it comes from main.py, which imports it.
import torch


def train_one_epoch(model, loader, optimizer, device):
    for x, y in loader:
        out = model(x.to(device))
        loss = (out - y.to(device)).pow(2)
        kept = loss[loss > 0.1]  # error: [TL102]
        if kept.mean() > 1:  # error: [TL102]
            continue
        loss.mean().backward()
        optimizer.step()
        torch.cuda.empty_cache()  # error: [TL103]
