# torchlint-test: select=TL201
import argparse
import os

import torch
import torch.utils.data as tud
from torch.utils.data import DataLoader
from torch.utils.data import DataLoader as DL
from mylib.data import DataLoader as OtherLoader

NUM_WORKERS = 0
WORKERS = 8

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=4)
parser.add_argument("-j", "--num-workers", dest="loader_workers", type=int, default=0)
parser.add_argument("--jobs", type=int)
parser.add_argument("--cpus", type=int, default="0")
args = parser.parse_args()

a = DataLoader(ds)  # error: [TL201]
b = DataLoader(ds, batch_size=32, num_workers=0)  # error: [TL201]
c = DataLoader(ds, 32, True, None, None, 0)  # error: [TL201]
d = DL(ds, num_workers=NUM_WORKERS)  # error: [TL201]
e = tud.DataLoader(ds, batch_size=8)  # error: [TL201]
f = torch.utils.data.DataLoader(ds)  # error: [TL201]
g = DataLoader(ds, num_workers=args.loader_workers)  # error: [TL201]
h = DataLoader(ds, num_workers=args.cpus)  # error: [TL201]
i = DataLoader(  # error: [TL201]
    ds,
    batch_size=64,
    shuffle=True,
)

# Negatives.
ok1 = DataLoader(ds, num_workers=4)
ok2 = DataLoader(ds, 32, True, None, None, 2)
ok3 = DataLoader(ds, num_workers=WORKERS)
ok4 = DataLoader(ds, num_workers=args.workers)
ok5 = DataLoader(ds, num_workers=os.cpu_count())
ok6 = DataLoader(ds, num_workers=args.jobs)
ok7 = DataLoader(*loader_args)
ok8 = OtherLoader(ds)
ok9 = DataLoader(ds, num_workers=min(8, os.cpu_count() or 1))


def make_loader(ds, workers=0):
    # A parameter: the caller decides.
    return DataLoader(ds, num_workers=workers)
