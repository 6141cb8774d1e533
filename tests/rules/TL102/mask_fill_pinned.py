# torchlint-test: select=TL102 target-torch=1.9
# Before PyTorch 1.10, `index_put_` indexed a boolean mask's nonzeros even to write one number: the
# writes mask_fill.py leaves silent sync here (the project's pin, or --target-torch, says which torch).
import math

import torch

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(100):
    logits = model(torch.randn(4, 8, device="cuda"))
    v, _ = torch.topk(logits, 3)
    logits[logits < v[:, [-1]]] = -float("Inf")  # error: [TL102]
    logits[logits > 1] = math.inf  # error: [TL102]
    logits[:, logits[0] > 0] = 0.0
    logits[logits > 5] = logits.max()  # error: [TL102]
    logits.sum().backward()
    optimizer.step()
