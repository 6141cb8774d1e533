# torchlint-test: select=TL101
# `or` of rare conditions is rare; `or` with a condition that can hold on any step is not.
import torch

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
log_interval = 10


def train(loader, loss_is_bad):
    last_idx = len(loader) - 1
    for batch_idx, (x, y) in enumerate(loader):
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
        loss.backward()
        optimizer.step()
        last_batch = batch_idx == last_idx
        if (batch_idx == 0) or ((batch_idx + 1) % log_interval == 0):
            print(loss.item())
        if batch_idx % log_interval == 0 or last_batch:
            print(loss.item())
        if batch_idx % 100 == 0 or loss_is_bad:
            print(loss.item())  # error: [TL101]
        if batch_idx == last_idx and loss_is_bad:
            print(loss.item())
