# torchlint-test: select=TL406 unsafe-fixes
# The training function is called twice, with two models: which one to convert is not one statement's
# business, so the finding has no fix.
import torch
import torchvision


def train(model, loader, optimizer):
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:  # error: [TL406]
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(x.cuda()).sum()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def main(loader, optimizer):
    small = torchvision.models.resnet18().cuda()
    large = torchvision.models.resnet50().cuda()
    train(small, loader, optimizer)
    train(large, loader, optimizer)
