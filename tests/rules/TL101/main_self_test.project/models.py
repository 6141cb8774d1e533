# torchlint-test: select=TL101,TL402
# The models this project builds live on the GPU.
import torch


def build():
    return torch.nn.Linear(8, 8).cuda()
