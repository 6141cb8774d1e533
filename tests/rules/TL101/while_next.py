# torchlint-test: select=TL101
import torch
import torch.utils.data as tud

model = torch.nn.Linear(16, 16).cuda()
optimizer = torch.optim.Adam(model.parameters())
loader = tud.DataLoader(dataset, batch_size=8)
data_iter = iter(loader)
step = 0
while step < 1000:
    x, y = next(data_iter)
    loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
    loss.backward()
    optimizer.step()
    value = loss.item()  # error: [TL101]
    step += 1

for it in range(500):
    batch = next(data_iter)
    out = model(batch.cuda())
    print(out.sum().item())  # error: [TL101]

# A while loop over something that is not a DataLoader, with no training in it, is not a step loop.
queue = [1, 2, 3]
while queue:
    item = queue.pop()
    total = torch.tensor(item).item()
