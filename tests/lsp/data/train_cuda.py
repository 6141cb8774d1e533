import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(1000, 1000).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=32, num_workers=4)
for x, y in loader:
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x.cuda(non_blocking=True)).sum()
    loss.backward()
    optimizer.step()
    print(loss.item())
