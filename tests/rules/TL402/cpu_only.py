# torchlint-test: select=TL402
# A CPU-only script gets none of the CUDA rules.
import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(512, 512)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for x, y in DataLoader(range(8)):
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
