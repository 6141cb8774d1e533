# torchlint-test: select=TL101
import torch

from engine import train_one_epoch

model = torch.nn.Linear(4, 4).cuda()
criterion = torch.nn.MSELoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
loader = torch.utils.data.DataLoader(list(range(8)), batch_size=2, num_workers=2, pin_memory=True)
for epoch in range(3):
    train_one_epoch(model, criterion, loader, optimizer, torch.device("cuda"))
