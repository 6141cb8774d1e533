# torchlint-test: select=TL201 unsafe-fixes
import argparse

from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=4)
args = parser.parse_args()

a = DataLoader(ds, num_workers=4)  # error: [TL201]
b = DataLoader(ds, batch_size=32, num_workers=4)  # error: [TL201]
c = DataLoader(  # error: [TL201]
    ds,
    batch_size=64,
    num_workers=4,
)
d = DataLoader(ds, num_workers=args.workers)  # error: [TL201]
kw = {"batch_size": 2}
e = DataLoader(ds, **kw, num_workers=4)  # error: [TL201]
