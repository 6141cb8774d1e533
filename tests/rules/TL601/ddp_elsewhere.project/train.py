# torchlint-test: select=TL601
# The model is wrapped in DDP by dist.py, which this file imports.
from dist import wrap


def train(model, loader, optimizer, rank, accum):
    model = wrap(model, rank)
    for i, (x, y) in enumerate(loader):
        loss = model(x.to(rank)).sum() / accum
        loss.backward()  # error: [TL601]
        if (i + 1) % accum == 0:
            optimizer.step()
            optimizer.zero_grad()
