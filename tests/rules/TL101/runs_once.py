# torchlint-test: select=TL101
# A loop whose body always leaves in its first iteration (it ends in `return`, `break` or `raise`, and
# no `continue` of its own skips that) runs once: Swin-Transformer's `throughput` measures one batch and
# returns, so its syncs are not per batch. A conditional exit, or a `continue` that skips the exit,
# keeps the loop a loop over batches.
import time

import torch


@torch.no_grad()
def throughput(data_loader, model):
    model.eval()
    for idx, (images, _) in enumerate(data_loader):
        images = images.cuda(non_blocking=True)
        for i in range(30):
            model(images)
        torch.cuda.synchronize()
        tic = time.time()
        for i in range(30):
            if i < 2:
                continue  # the inner loop's own continue
            model(images)
        torch.cuda.synchronize()
        print(time.time() - tic)
        return


@torch.no_grad()
def first_batch(data_loader, model):
    for images, _ in data_loader:
        print(model(images.cuda()).sum().item())
        break


@torch.no_grad()
def until_found(data_loader, model):
    for images, _ in data_loader:
        out = model(images.cuda())
        print(out.sum().item())  # error: [TL101]
        if out.numel() > 0:
            return out


@torch.no_grad()
def skips_empty(data_loader, model):
    for images, _ in data_loader:
        if images.numel() == 0:
            continue
        print(model(images.cuda()).sum().item())  # error: [TL101]
        return
