# torchlint: noqa
from torch.utils.data import DataLoader

a = DataLoader(ds)
