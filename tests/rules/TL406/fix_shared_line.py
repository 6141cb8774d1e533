# torchlint-test: select=TL406 unsafe-fixes
# The model's statement shares its line with another: no line can be added after it alone.
import torch
import torchvision

model = torchvision.models.resnet50().cuda(); scaler = torch.amp.GradScaler("cuda")
for x, y in loader:  # error: [TL406]
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x.cuda()).sum()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
