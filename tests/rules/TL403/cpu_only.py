# torchlint-test: select=TL403
import torch

torch.backends.cuda.matmul.allow_tf32 = False
model = torch.nn.Linear(512, 512)
for x, y in loader:
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
