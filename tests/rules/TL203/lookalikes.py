# torchlint-test: select=TL203
# Loaders without workers (TL201's), with a worker count torchlint cannot resolve, iterated once, or
# re-created every epoch.
import torch
from torch.utils.data import DataLoader

no_workers = DataLoader(train_set, batch_size=64)
zero = DataLoader(train_set, batch_size=64, num_workers=0)
unknown = DataLoader(train_set, batch_size=64, num_workers=cfg.workers)
once = DataLoader(train_set, batch_size=64, num_workers=4)

for epoch in range(3):
    for batch in no_workers:
        pass
    for batch in zero:
        pass
    for batch in unknown:
        pass

for batch in once:
    pass

for epoch in range(3):
    fresh = DataLoader(train_set, batch_size=64, num_workers=4)
    for batch in fresh:
        pass
