# torchlint-test: select=TL403 target-torch=1.11
# Before 1.12 TF32 matmuls were on by default and the setting does not exist: silent.
import torch

torch.backends.cuda.matmul.allow_tf32 = False
model = torch.nn.Linear(512, 512).cuda()
for x, y in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
