# torchlint-test: select=TL101
import torch


def sync_all():
    torch.cuda.synchronize()  # related: [TL101]
