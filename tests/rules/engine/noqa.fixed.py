# torchlint-test: select=TL2
import torch
from torch.utils.data import DataLoader

torch.cuda.init()
a = DataLoader(ds)  # noqa: TL201, TL202
b = DataLoader(ds)  # noqa
c = DataLoader(ds, pin_memory=True)  # noqa: TL201  # error: [TL202]
d = DataLoader(ds)  # NOQA:TL201 TL202
e = DataLoader(ds, pin_memory=True)  # noqa: TL2  # error: [TL201, TL202]
f = DataLoader(ds)  # type: ignore  # noqa: TL202  # error: [TL201]
g = DataLoader(ds, x="# noqa", pin_memory=True)  # error: [TL201, TL202]
h = DataLoader(ds)  # noqa:  this means all
