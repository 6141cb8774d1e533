# torchlint-test: select=TL406 unsafe-fixes
import torch as T
import torchvision

device = T.device("cuda")
model = torchvision.models.resnet50().to(device)
optimizer = T.optim.SGD(model.parameters(), lr=0.1)
scaler = T.amp.GradScaler("cuda")
for x, y in loader:  # error: [TL406]
    with T.autocast("cuda", dtype=T.float16):
        loss = T.nn.functional.cross_entropy(model(x.to(device, non_blocking=True)), y.to(device))
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
