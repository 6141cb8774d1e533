# torchlint-test: select=TL601
# Accumulation done right: the micro-steps run under model.no_sync().
import contextlib

import torch
from torch.nn.parallel import DistributedDataParallel as DDP

ACCUM = 4


def train(model, loader, optimizer, rank):
    model = DDP(model.to(rank), device_ids=[rank])
    for i, (x, y) in enumerate(loader):
        sync = (i + 1) % ACCUM == 0
        with contextlib.nullcontext() if sync else model.no_sync():
            loss = model(x.to(rank)).sum() / ACCUM
            loss.backward()
        if (i + 1) % ACCUM == 0:
            optimizer.step()
            optimizer.zero_grad()
