# torchlint-test: select=TL101,TL102
# Evaluation loops over a loader run per batch: a sync there costs every evaluation batch.
import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(8, 2).cuda()


@torch.no_grad()
def evaluate(loader):
    model.eval()
    correct = 0
    for x, y in loader:
        out = model(x.cuda())
        correct += (out.argmax(1) == y.cuda()).sum().item()  # error: [TL101]
    return correct


def generate(idx, steps):
    # A decoding loop: one model call per generated token.
    for _ in range(steps):
        logits = model(idx)
        if logits.max() > 10:  # error: [TL102]
            break
        idx = torch.cat([idx, logits.argmax(-1, keepdim=True)], dim=1)
    return idx


def summary(loader):
    # Once per call, no loop: not per batch.
    print(evaluate(loader))
    first = next(iter(loader))[0]
    print(first.sum().item())


summary(DataLoader(range(4)))
