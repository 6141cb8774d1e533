# torchlint-test: select=TL406
import torch
import torch.nn as nn

model = nn.Conv1d(3, 64, 3).cuda()
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
