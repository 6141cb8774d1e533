# torchlint-test: select=TL102
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = torch.device("cuda")
model = nn.Linear(32, 8).to(device)
criterion = nn.CrossEntropyLoss(reduction="none")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)

for epoch in range(10):
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        out = model(x)
        losses = criterion(out, y)
        valid = losses[losses > 0]  # error: [TL102]
        losses[torch.isnan(losses)] = 0  # a number through the mask: masked_fill_ (PyTorch 1.10+), no sync
        losses[torch.isnan(losses)] = losses.mean()  # error: [TL102]
        losses[losses > 10] *= 0.5  # error: [TL102]
        keep = out.argmax(dim=1) == y
        right = out[keep]  # error: [TL102]
        wrong = out[~keep]  # error: [TL102]
        idx = keep.nonzero()  # error: [TL102]
        idx2 = torch.nonzero(keep)  # error: [TL102]
        (rows,) = torch.where(keep)  # error: [TL102]
        picked = torch.masked_select(out, keep.unsqueeze(1))  # error: [TL102]
        classes = y.unique()  # error: [TL102]
        classes2 = torch.unique(y)  # error: [TL102]
        counts = torch.bincount(y)
        expanded = out.repeat_interleave(counts, dim=0)  # error: [TL102]
        sized = out.repeat_interleave(counts, dim=0, output_size=64)
        doubled = out.repeat_interleave(2, dim=0)
        loss = losses.mean()
        assert loss.min() >= 0  # error: [TL102]
        if loss > 100:  # error: [TL102]
            break
        elif not torch.isfinite(loss):  # error: [TL102]
            break
        biggest = max(losses)  # error: [TL102]
        total = sum(losses)  # error: [TL102]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        chosen = torch.where(keep, out.max(dim=1).values, 0)
        if step % 100 == 0:
            print(valid.sum())
            if loss > 50:
                pass
    if loss > 10:
        print("high loss at the end of the epoch")
