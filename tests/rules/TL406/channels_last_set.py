# torchlint-test: select=TL406
import torch
import torch.nn as nn

model = nn.Conv2d(3, 64, 3).cuda().to(memory_format=torch.channels_last)
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
