# torchlint-test: select=TL406 unsafe-fixes
# `model.forward(y1, y2)` with two inputs moved by statements of the loop, through SyncBatchNorm's
# conversion and DDP (the way self-supervised training scripts write it): the first input's move gets
# `memory_format=`, not the second's (a second argument can be targets, which are not 4-D).
import torch
import torch.nn as nn
import torchvision


class Twins(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = torchvision.models.resnet50()

    def forward(self, y1, y2):
        return (self.backbone(y1) - self.backbone(y2)).pow(2).mean()


def main(gpu, loader, optimizer):
    model = Twins().cuda(gpu)
    model = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[gpu])
    scaler = torch.cuda.amp.GradScaler()
    for step, ((y1, y2), _) in enumerate(loader):  # error: [TL406]
        y1 = y1.cuda(gpu, non_blocking=True)
        y2 = y2.cuda(gpu, non_blocking=True)
        optimizer.zero_grad()
        with torch.cuda.amp.autocast():
            loss = model.forward(y1, y2)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
