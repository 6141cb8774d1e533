# torchlint-test: select=TL502 target-torch=2.4
import torch


def build(net):
    return torch.compile(net.cuda())
