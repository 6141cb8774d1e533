# torchlint-test: select=TL101
# A buffer the module registers is a tensor that moves with the module: reading it as a Python number in
# a method the forward pass runs syncs on every step.
import torch
import torch.nn as nn


class Queue(nn.Module):
    def __init__(self, dim, size):
        super().__init__()
        self.size = size
        self.calls = 0
        self.encoder = nn.Linear(dim, dim)
        self.register_buffer("queue", torch.randn(dim, size))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))
        self.register_buffer("unused", None)
        self.scale = nn.Parameter(torch.ones(1))

    @torch.no_grad()
    def _enqueue(self, keys):
        ptr = int(self.queue_ptr)  # error: [TL101]
        self.queue[:, ptr : ptr + keys.shape[0]] = keys.T
        self.queue_ptr[0] = (ptr + keys.shape[0]) % self.size
        # Look-alikes: a plain attribute and the size the constructor was given.
        calls = int(self.calls)
        size = int(self.size)
        return calls + size

    def forward(self, x):
        k = self.encoder(x)
        self._enqueue(k)
        return k * float(self.scale)  # error: [TL101]


model = Queue(8, 64).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = torch.utils.data.DataLoader(list(range(16)), batch_size=4)
for batch in loader:
    out = model(batch.cuda())
    out.sum().backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)


class Meter:
    # Not a module: calling it runs `__call__`, outside any loop here.
    def __call__(self, value):
        return value.item()  # error: [TL101]


meter = Meter()
for batch in loader:
    out = model(batch.cuda())
    meter(out.sum())
    out.sum().backward()
    optimizer.step()
# Once, after training: not per step.
meter(model(torch.zeros(4, 8).cuda()).sum())
