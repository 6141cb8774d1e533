# torchlint-test: select=TL101
import torch
import torch.nn as nn


class Queue(nn.Module):
    def __init__(self, dim, size):
        super().__init__()
        self.size = size
        self.encoder = nn.Linear(dim, dim)
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _enqueue(self, keys):
        ptr = int(self.queue_ptr)  # related: [TL101]
        self.queue_ptr[0] = (ptr + keys.shape[0]) % self.size

    def forward(self, x):
        k = self.encoder(x)
        self._enqueue(k)
        return k


class Plain(nn.Module):
    # The same shape with a Python counter: no sync.
    def __init__(self, dim):
        super().__init__()
        self.count = 0
        self.encoder = nn.Linear(dim, dim)

    def forward(self, x):
        self.count = int(self.count) + 1
        return self.encoder(x)
