# torchlint-test: select=TL103,TL202,TL205
# A utilities module whose imports the scripts take with `from utils import *`.
import torch
import torch as _private_torch
from torch.utils.data import DataLoader


def make_loader(dataset):
    return DataLoader(dataset, batch_size=32, num_workers=4, pin_memory=True)
