# torchlint-test: select=TL101
# Shapes the index answers or leaves unknown, never hangs on: `sys.path` edits, a star import of a
# project module (followed: the index has the name), a module of the project that shadows a torch name.
import sys

sys.path.insert(0, "lib")

import torch
from helpers import *
import vendored_sync
import torch as torch_alias

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train(loader):
    for x, y in loader:
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
        loss.backward()
        optimizer.step()
        sync_everything(loss)  # error: [TL101]
        vendored_sync.pull(loss)  # error: [TL101]
        torch_alias.nn.functional.relu(loss)
