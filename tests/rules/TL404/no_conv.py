# torchlint-test: select=TL404
# No convolutions, or no CUDA: not reported.
import torch

model = torch.nn.Linear(64, 64).cuda()
for x, y in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
