# torchlint-test: select=TL103
# empty_cache() under a periodic guard, once per epoch, after training, off the GPU, or another
# `empty_cache` that is not torch's.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

model = nn.Linear(32, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=64)
cache = {}


class Cache:
    def empty_cache(self):
        cache.clear()


store = Cache()

for epoch in range(10):
    for step, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        store.empty_cache()
        if step % 500 == 0:
            torch.cuda.empty_cache()
    torch.cuda.empty_cache()
torch.cuda.empty_cache()
