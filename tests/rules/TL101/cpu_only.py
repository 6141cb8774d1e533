# torchlint-test: select=TL101
# A CPU-only script: no device, so no device sync to report.
import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=4)
device = "cpu"
for x, y in loader:
    loss = torch.nn.functional.mse_loss(model(x.to(device)), y)
    loss.backward()
    optimizer.step()
    print(loss.item())
