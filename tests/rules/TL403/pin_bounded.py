# torchlint-test: select=TL403 pin=~=1.10.0
# `~=1.10.0` allows 1.10.x only, where TF32 matmuls were still on by default: silent.
import torch

model = torch.nn.Linear(512, 512).cuda()
for x, y in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
