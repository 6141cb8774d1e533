# torchlint-test: select=TL101
# PyTorch >= 2.6's device-neutral API (the official examples use it): the script runs on CUDA.
import torch

device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else "cpu"


def train(model, loader, optimizer):
    model = model.to(device)
    for x, y in loader:
        loss = model(x.to(device)).sum()
        loss.backward()
        optimizer.step()
        print(loss.item())  # error: [TL101]
