# torchlint-test: select=TL101
import torch


def accuracy(scores, targets, k):
    _, ind = scores.topk(k, 1, True, True)
    correct = ind.eq(targets.view(-1, 1).expand_as(ind))
    return correct.view(-1).float().sum().item() * (100.0 / targets.size(0))  # related: [TL101]


def clip_gradients(model, clip):
    norms = []
    for name, p in model.named_parameters():
        if p.grad is not None:
            param_norm = p.grad.data.norm(2)
            norms.append(param_norm.item())  # related: [TL101]
            p.grad.data.mul_(clip / (param_norm + 1e-6))
    return norms
