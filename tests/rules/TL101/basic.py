# torchlint-test: select=TL101,TL102
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = torch.device("cuda")
model = nn.Linear(32, 8).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
stats = {"seen": 0}

for epoch in range(10):
    running = 0.0
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item()  # error: [TL101]
        preds = out.argmax(dim=1).cpu().numpy()  # error: [TL101]
        ids = y.tolist()  # error: [TL101]
        value = float(loss)  # error: [TL101]
        print(loss)  # error: [TL101]
        print(f"step {step} loss {loss}")  # error: [TL101]
        torch.cuda.synchronize()  # error: [TL101]
        if loss > 100:  # error: [TL102]
            break
        flag = bool(torch.isnan(loss).any())  # error: [TL101]
        # Look-alikes that are not tensors: no sync.
        for key, count in stats.items():
            pass
        batch_size = x.shape[0]
        n = float(batch_size)
        m = int(len(y))
        lr = float(0.1)
        print(f"step {step} of {len(loader)}")
        print("lr", lr, batch_size)
        total = running + 1
        if step > 10 and batch_size == 64:
            pass
        scalar = float(loss.item())  # error: [TL101]
    # Once per epoch: not a per-step sync.
    print(f"epoch {epoch}: {running / len(loader):.3f}")
    last = loss.item()
    torch.cuda.synchronize()
