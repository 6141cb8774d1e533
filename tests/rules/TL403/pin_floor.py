# torchlint-test: select=TL403 pin=>=0.4.0
# An old floor with no upper bound: the project may run 1.12 or later, where fp32 matmuls are off TF32.
import torch

model = torch.nn.Linear(512, 512).cuda()
for x, y in loader:  # error: [TL403]
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
