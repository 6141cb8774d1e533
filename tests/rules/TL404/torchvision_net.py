# torchlint-test: select=TL404
import torch
import torchvision

model = torchvision.models.resnet50().cuda()
for x, y in loader:  # error: [TL404]
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
