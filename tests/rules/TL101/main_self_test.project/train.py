# torchlint-test: select=TL101,TL402
# The training script runs on CUDA and imports splitloss.py, whose `__main__` self-test is a program of
# its own: run as a script, splitloss.py does not load this file, so its CUDA is not the self-test's.
import torch

from splitloss import SplitLoss

model = torch.nn.Linear(8, 8).cuda()
criterion = SplitLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:  # error: [TL402]
    loss = criterion(model(x.cuda()), y.cuda())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(loss.item())  # error: [TL101]
