# torchlint-test: select=TL102
# Look-alikes of generate.py: `self(...)` in a class that is not a module, a loop over layers in a
# module's forward, and `any()` over host values.
import torch
import torch.nn as nn


class Sampler:
    def __call__(self, logits):
        return logits

    def run(self, logits, steps):
        for _ in range(steps):
            out = self(logits)
            out[out < 0] = 0


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(4)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
            x[x < 0] = 0
        return x


model = Stack().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
sizes = [3, 4, 5]
for step in range(100):
    loss = model(torch.randn(4, 8, device="cuda")).sum()
    loss.backward()
    if any(size > 4 for size in sizes):
        continue
    optimizer.step()
