# torchlint-test: select=TL403
# Under autocast the matmuls are fp16/bf16: TF32 does not matter. CPU-only scripts are silent too.
import torch

model = torch.nn.Linear(512, 512).cuda()
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
