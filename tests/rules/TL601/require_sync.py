# torchlint-test: select=TL601
# DDP's own switch toggled on the micro-steps.
from torch.nn.parallel import DistributedDataParallel as DDP


def train(model, loader, optimizer, rank):
    model = DDP(model.to(rank), device_ids=[rank])
    for i, (x, y) in enumerate(loader):
        model.require_backward_grad_sync = (i + 1) % 4 == 0
        loss = model(x.to(rank)).sum()
        loss.backward()
        if (i + 1) % 4 == 0:
            optimizer.step()
            optimizer.zero_grad()
