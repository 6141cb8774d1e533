# torchlint-test: select=TL403
# TF32 on: not reported.
import torch

torch.set_float32_matmul_precision("high")
model = torch.nn.Linear(512, 512).cuda()
for x, y in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
