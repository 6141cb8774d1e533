# Look-alikes TL401 must not report: multiples of 8, dims below min-dim (RGB channels, a 10-class head),
# values it cannot resolve, and layers that are only named Linear.
import torch
import torch.nn as nn


class Linear:
    def __init__(self, in_features, out_features):
        self.shape = (in_features, out_features)


def make(hidden, vocab):
    return nn.Sequential(
        nn.Conv2d(3, 64, kernel_size=3),
        nn.Linear(512, 1024),
        nn.Linear(1024, 10),
        nn.Linear(hidden, vocab),
        nn.Embedding(50304, 768),
        nn.LSTM(256, 512),
    ), Linear(1001, 1001)
