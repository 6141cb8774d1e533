# torchlint-test: select=TL402
import torch


def autocast_ctx():
    return torch.autocast("cuda", dtype=torch.bfloat16)
