# torchlint-test: select=TL101
# Lightning Fabric picks the GPU by default (accelerator="auto").
import lightning as L
import torch

fabric = L.Fabric()
model = torch.nn.Linear(8, 8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
model, optimizer = fabric.setup(model, optimizer)


def train(loader):
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        fabric.backward(loss)
        optimizer.step()
        print(loss.item())  # error: [TL101]
