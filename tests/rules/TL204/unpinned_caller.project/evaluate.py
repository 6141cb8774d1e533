# torchlint-test: select=TL204
# `dataloader` comes from train.py unpinned: `non_blocking=True` would not make its copies asynchronous.
import torch


@torch.no_grad()
def evaluate(net, dataloader, device):
    total = 0
    for batch in dataloader:
        image = batch["image"].to(device=device, dtype=torch.float32)
        total += net(image).sum()
    return total
