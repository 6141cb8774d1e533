# torchlint: noqa: TL202
import torch
from torch.utils.data import DataLoader

device = "cuda"
a = DataLoader(ds)  # error: [TL201]
