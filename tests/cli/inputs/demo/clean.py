import torch
from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
model = torch.nn.Linear(1024, 1024).cuda()
for x in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x.cuda(non_blocking=True)).sum()
    loss.backward()
