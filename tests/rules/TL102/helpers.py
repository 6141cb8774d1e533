# torchlint-test: select=TL102
# A helper the step loop calls runs every step; the same kind of helper called once per epoch does not.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

device = "cuda"
model = nn.Linear(32, 8).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=64)


def correct_logits(x, y):
    out = model(x)
    hits = out.argmax(dim=1) == y
    return out[hits]  # error: [TL102]


def positive_logits(x):
    out = model(x)
    return out[out > 0]


def train_step(x, y):
    out = model(x)
    loss = nn.functional.cross_entropy(out, y)
    if torch.isnan(loss).any():  # error: [TL102]
        raise RuntimeError("nan")
    loss.backward()
    optimizer.step()
    return out


for epoch in range(3):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        train_step(x, y)
        correct_logits(x, y)
    positive_logits(x)
