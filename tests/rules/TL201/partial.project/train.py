# torchlint-test: select=TL201
from functools import partial

from data import Task

iter_batches = partial(Task.iter_batches, batch_size=8, device="cuda", num_workers=0)
iter_workers = partial(Task.iter_workers, batch_size=8, num_workers=4)
iter_overridden = partial(Task.iter_overridden, batch_size=8, num_workers=0)
iter_unbound = partial(Task.iter_unbound, 8)
for x, y in iter_batches(split="train"):
    step(x, y)
for x in iter_workers(split="train"):
    step(x)
for x in iter_overridden(num_workers=8):
    step(x)
consume(iter_unbound)
for x, y in Task.iter_positional(8, "cuda", 0):
    step(x, y)
