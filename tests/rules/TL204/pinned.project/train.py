# torchlint-test: select=TL204
# The loader comes from data.py, whose build_loader pins its memory: the copies of its batches wait for
# each copy. Look-alikes: the batches of data.py's unpinned loader, of its Accelerate-prepared loader,
# and of a list that is no loader, and a copy that passes `non_blocking=True`.
import torch

from data import build_batches, build_loader, build_prepared, build_unpinned

loader = build_loader(dataset)
for epoch in range(3):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()  # error: [TL204, TL204]
        z = y.to("cuda", non_blocking=True)
        local = torch.utils.data.DataLoader(dataset, pin_memory=True)
    for x, y in build_unpinned(dataset):
        x = x.cuda()
    for x, y in build_prepared(dataset, accelerator):
        x = x.to(accelerator.device)
    for x, y in build_batches(dataset):
        x = x.cuda()
