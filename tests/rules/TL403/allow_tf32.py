# torchlint-test: select=TL403
import torch

torch.backends.cuda.matmul.allow_tf32 = True
model = torch.nn.Linear(512, 512).cuda()
for x, y in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
