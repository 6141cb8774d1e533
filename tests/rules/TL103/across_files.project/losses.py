# torchlint-test: select=TL103
# A loss module that empties the CUDA cache on every call (through a method of its own), one that does
# it only under a periodic guard, and one that never does.
import torch
import torch.nn as nn


class CollisionLoss(nn.Module):
    def forward(self, pred, target):
        return self._distance(pred, target).mean()

    def _distance(self, pred, target):
        distance = (pred - target).pow(2)
        torch.cuda.empty_cache()  # related: [TL103]
        return distance


def periodic_loss(pred, target, step):
    if step % 1000 == 0:
        torch.cuda.empty_cache()
    return (pred - target).abs().mean()


def plain_loss(pred, target):
    return (pred - target).abs().mean()


def release():
    torch.cuda.empty_cache()
