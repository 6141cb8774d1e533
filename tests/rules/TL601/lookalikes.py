# torchlint-test: select=TL601
# Not reported: DDP without accumulation (a step every iteration), a plain step in the branch of the
# backward; accumulation without DDP is in
# no_ddp.py.
import torch
from torch.nn.parallel import DistributedDataParallel


def train(model, loader, optimizer, rank):
    model = DistributedDataParallel(model.to(rank), device_ids=[rank])
    for i, (x, y) in enumerate(loader):
        loss = model(x.to(rank)).sum()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if i % 100 == 0:
            print(loss.item())


def train_either(model, loader, optimizer, scaler, rank, accum):
    # Accumulation in one branch, a plain step in the other: only the accumulating backward is reported.
    model = DistributedDataParallel(model.to(rank), device_ids=[rank])
    for i, (x, y) in enumerate(loader):
        loss = model(x.to(rank)).sum()
        if accum > 1:
            scaler.scale(loss / accum).backward()  # error: [TL601]
            if (i + 1) % accum == 0:
                scaler.step(optimizer)
                optimizer.zero_grad()
        else:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            optimizer.zero_grad()
