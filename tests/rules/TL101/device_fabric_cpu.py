# torchlint-test: select=TL101
# The look-alike: Fabric on the CPU.
import lightning as L
import torch

fabric = L.Fabric(accelerator="cpu")
model = torch.nn.Linear(8, 8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train(loader):
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        fabric.backward(loss)
        optimizer.step()
        print(loss.item())
