# torchlint-test: select=TL402
# CUDA training in fp32, with no autocast anywhere.
import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(512, 512).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(range(8), batch_size=2)

for x, y in loader:  # error: [TL402]
    out = model(x.cuda())
    loss = torch.nn.functional.mse_loss(out, y.cuda())
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
