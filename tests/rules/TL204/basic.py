# torchlint-test: select=TL204
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = torch.device("cuda")
model = nn.Linear(32, 8).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
val_loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=False)

for epoch in range(10):
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device), y.cuda()  # error: [TL204, TL204]
        step_dev = torch.tensor(step).to(device)
        out = model(x)
        loss = nn.functional.cross_entropy(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    for batch in loader:
        inputs = batch[0].to(device, non_blocking=False)  # error: [TL204]
        labels = batch[1].to(device, non_blocking=True)
        half = batch[0].to(torch.float16)
        back = batch[0].to("cpu")
    for x, y in val_loader:
        x = x.to(device)
        y = y.cuda()
