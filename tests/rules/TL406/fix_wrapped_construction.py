# torchlint-test: select=TL406 unsafe-fixes
# No statement holds the bare module (it is built inside the DDP call), and a module's layout must not
# change once DDP holds it; and a second model built on a shared line: neither gets a fix.
import torch
import torchvision
from torch.nn.parallel import DistributedDataParallel


def main(loader, optimizer, rank):
    model = DistributedDataParallel(torchvision.models.resnet50().cuda(rank), device_ids=[rank])
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:  # error: [TL406]
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(x.cuda(rank)).sum()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
