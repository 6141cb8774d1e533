# torchlint-test: select=TL102
# The look-alikes of an implicit sync that read nothing from the device.
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

model = nn.Linear(32, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=64)
lengths = [3, 4, 5]
table = np.arange(10)


def accuracy(out, y):
    return (out.argmax(dim=1) == y).float().mean()


for step, (x, y) in enumerate(loader):
    x, y = x.cuda(), y.cuda()
    out = model(x)
    loss = nn.functional.cross_entropy(out, y)
    arr = np.random.rand(10)
    positives = arr[arr > 0]  # a NumPy array
    host = torch.randint(0, 10, (16,))  # made on the host, never moved
    small = host[host > 3]
    if host.sum() > 3:
        pass
    if step > 10 and len(lengths) == 3:
        pass
    assert x.shape[0] == y.shape[0]
    assert loss is not None
    first = out[0]
    rows = out[:, 1:]
    picked = out[y]  # an integer index: a gather, no sync
    biggest = max(lengths)
    total = sum(l * 2 for l in lengths)
    count = sum([1, 2])
    chosen = torch.where(out > 0, out, torch.zeros_like(out))
    repeated = out.repeat_interleave(2, dim=0)
    cpu_mask = table[table > 4]
    if step in {1, 2}:
        pass
    if device_index is None:
        pass
    if step % 50 == 0:
        wrong = out[out < 0]
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

# Once, after training: not per step.
final = out[out > 0]
if loss > 1:
    print("done")
