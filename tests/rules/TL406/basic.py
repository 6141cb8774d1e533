# torchlint-test: select=TL406
import torch
import torchvision

model = torchvision.models.resnet50().cuda()
scaler = torch.cuda.amp.GradScaler()
for x, y in loader:  # error: [TL406]
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x.cuda()).sum()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
