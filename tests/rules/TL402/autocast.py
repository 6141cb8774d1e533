# torchlint-test: select=TL402
# Mixed precision through torch.autocast and a GradScaler: not reported.
import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(512, 512).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler()

for x, y in DataLoader(range(8)):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x.cuda()).sum()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
