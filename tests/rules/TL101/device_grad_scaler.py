# torchlint-test: select=TL101
# torch.cuda.amp.GradScaler only works on CUDA.
import torch


def train(model, loader, optimizer):
    scaler = torch.cuda.amp.GradScaler()
    for x, y in loader:
        loss = model(x).sum()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        print(loss.item())  # error: [TL101]
