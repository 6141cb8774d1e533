# torchlint-test: select=TL204
# Look-alike: evaluate() is called by linear.py with a pinned loader from data.py, and by knn.py with one
# whose pinning is not known: not every batch it copies is pinned, so nothing is reported.
import torch


@torch.no_grad()
def evaluate(model, data_loader, device):
    total = 0
    for samples, targets in data_loader:
        total += model(samples.to(device)).sum()
    return total
