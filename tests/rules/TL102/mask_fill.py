# torchlint-test: select=TL102
# A Python number written through a boolean mask that is the only tensor index is a `masked_fill_` from
# PyTorch 1.10 on (the number becomes a host scalar and `index_put_` dispatches to the fill): no sync.
# A tensor value, an augmented write (it reads `x[mask]` first) and a mask beside another tensor index
# still go through the mask's nonzeros.
import math

import numpy as np
import torch

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
NEG = -1e4


class Head(torch.nn.Module):
    def __init__(self, eot: int, fill=None):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)
        self.eot = eot
        self.fill = fill

    def forward(self, x):
        next_tokens = self.proj(x).argmax(dim=-1)
        next_tokens[next_tokens == self.eot] = self.eot
        next_tokens[next_tokens == 0] = self.fill  # error: [TL102]
        return next_tokens


head = Head(5, fill=torch.zeros((), device="cuda")).cuda()
for step in range(100):
    logits = model(torch.randn(4, 8, device="cuda"))
    v, _ = torch.topk(logits, 3)
    # Numbers: silent.
    logits[logits < v[:, [-1]]] = -float("Inf")
    logits[logits > 1] = math.inf
    logits[logits > 2] = -np.inf
    logits[logits > 3] = torch.finfo(logits.dtype).min
    logits[logits[:, 0] > 0, 0] = 0.0
    logits[logits > 4] = NEG * 2
    logits[torch.isnan(logits)] = True
    head(logits)
    # Tensors, reads and several tensor indices: syncs.
    logits[logits > 5] = logits.max()  # error: [TL102]
    logits[logits > 6] = v.mean()  # error: [TL102]
    logits[logits > 7] += 1  # error: [TL102]
    kept = logits[logits > 8]  # error: [TL102]
    bound = logits.mean()
    logits[logits > 9] = bound  # error: [TL102]
    rows = torch.arange(4, device="cuda")
    logits[logits[:, 0] > 0, rows] = 0.0  # error: [TL102]
    logits.sum().backward()
    optimizer.step()
