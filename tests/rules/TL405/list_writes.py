# Consecutive writes to a layer list: a conv written by one `+=` and a batch norm by the next, directly
# or under `if batch_norm:` (VGG's make_layers). Behind the `if` no fix is offered: the bias is needed
# when the branch does not run.
import torch.nn as nn


def make_layers(cfg, batch_norm=False):
    layers = []
    input_channel = 3
    for width in cfg:
        if width == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
            continue
        layers += [nn.Conv2d(input_channel, width, kernel_size=3, padding=1)]  # error: [TL405]
        if batch_norm:
            layers += [nn.BatchNorm2d(width)]
        layers += [nn.ReLU(inplace=True)]
        input_channel = width
    return nn.Sequential(*layers)


def plain_stack(widths):
    layers = []
    for a, b in zip(widths, widths[1:]):
        layers += [nn.Conv2d(a, b, 3)]  # error: [TL405]
        layers += [nn.BatchNorm2d(b), nn.ReLU()]
    return nn.Sequential(*layers)


def lookalikes(widths, use_pool):
    layers = []
    for a, b in zip(widths, widths[1:]):
        layers += [nn.Conv2d(a, b, 3)]
        layers += [nn.ReLU()]
        layers += [nn.BatchNorm2d(b)]  # after the activation: the bias matters
        layers += [nn.Conv2d(b, b, 3, bias=False)]
        layers += [nn.BatchNorm2d(b)]
        layers += [nn.Conv2d(b, b, 3)]
        if use_pool:
            layers += [nn.MaxPool2d(2)]
        layers += [nn.BatchNorm2d(b)]  # not directly after the conv on every path: silent
    return nn.Sequential(*layers)
