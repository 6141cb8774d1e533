# torchlint-test: select=TL203
# The machine's CPU count is at least one worker wherever the code runs: `os.cpu_count()` directly, through
# a name, in a kwargs dict (Pytorch-UNet's `loader_args`), or as `len(os.sched_getaffinity(0))`. A count
# computed some other way stays unknown.
import multiprocessing
import os

import torch
from torch.utils.data import DataLoader

workers = os.cpu_count()
dataset = torch.utils.data.TensorDataset(torch.randn(64, 8))
model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

direct = DataLoader(dataset, num_workers=os.cpu_count())  # error: [TL203]
named = DataLoader(dataset, num_workers=workers)  # error: [TL203]
loader_args = dict(batch_size=8, num_workers=os.cpu_count(), pin_memory=True)
from_dict = DataLoader(dataset, **loader_args)  # error: [TL203]
affinity = DataLoader(dataset, num_workers=len(os.sched_getaffinity(0)))  # error: [TL203]
mp = DataLoader(dataset, num_workers=int(multiprocessing.cpu_count()))  # error: [TL203]
kept = DataLoader(dataset, num_workers=os.cpu_count(), persistent_workers=True)
halved = DataLoader(dataset, num_workers=os.cpu_count() // 2)
once = DataLoader(dataset, num_workers=os.cpu_count())

for epoch in range(10):
    for loader in (direct, named, from_dict, affinity, mp, kept, halved):
        pass
    for (x,) in direct:
        optimizer.zero_grad()
        model(x.cuda()).sum().backward()
        optimizer.step()
    for (x,) in named:
        pass
    for (x,) in from_dict:
        pass
    for (x,) in affinity:
        pass
    for (x,) in mp:
        pass
    for (x,) in kept:
        pass
    for (x,) in halved:
        pass

for (x,) in once:
    pass
