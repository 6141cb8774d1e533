# torchlint-test: select=TL403
# TF32 turned off on purpose is reported where it is written, not again at the loop.
import torch

torch.backends.cuda.matmul.allow_tf32 = False  # error: [TL403]
torch.backends.cudnn.allow_tf32 = False  # error: [TL403]
torch.set_float32_matmul_precision("highest")  # error: [TL403]

model = torch.nn.Linear(512, 512).cuda()
for x, y in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
