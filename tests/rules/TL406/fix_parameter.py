# torchlint-test: select=TL406 unsafe-fixes
# The model is a parameter of the loop's function, and the one call of it builds the model in its
# arguments: no statement holds the model, so the finding has no fix.
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


train(torchvision.models.resnet18().cuda(), loader, optimizer)
