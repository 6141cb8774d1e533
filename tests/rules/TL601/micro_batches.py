# torchlint-test: select=TL601
# Micro-batches in a loop inside the step: the optimizer steps once per outer iteration.
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def train(model, loader, optimizer, rank):
    model = DDP(model.to(rank), device_ids=[rank])
    for x, y in loader:
        for xm in x.chunk(4):
            loss = model(xm.to(rank)).sum()
            loss.backward()  # error: [TL601]
        optimizer.step()
        optimizer.zero_grad()
