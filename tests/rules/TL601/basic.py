# torchlint-test: select=TL601
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

ACCUM = 4


def train(model, loader, optimizer, rank):
    model = DDP(model.to(rank), device_ids=[rank])
    for i, (x, y) in enumerate(loader):
        loss = model(x.to(rank)).sum() / ACCUM
        loss.backward()  # error: [TL601]
        if (i + 1) % ACCUM == 0:
            optimizer.step()
            optimizer.zero_grad()
