# torchlint-test: select=TL103
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torch.cuda import empty_cache

model = nn.Linear(32, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=64)

for epoch in range(10):
    for step, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()  # error: [TL103]
        empty_cache()  # error: [TL103]
        if step % 100 == 0:
            torch.cuda.empty_cache()
    torch.cuda.empty_cache()
torch.cuda.empty_cache()
