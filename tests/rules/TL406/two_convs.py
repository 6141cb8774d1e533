# torchlint-test: select=TL406
import torch
import torch.nn as nn

model = nn.Sequential(nn.Conv2d(3, 64, 3), nn.ReLU(), nn.Conv2d(64, 64, 3)).cuda()
scaler = torch.amp.GradScaler("cuda")
for x, y in loader:  # error: [TL406]
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x.cuda()).sum()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
