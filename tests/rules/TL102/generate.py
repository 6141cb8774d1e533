# torchlint-test: select=TL102
# A module's own decoding loop: `self(idx)` in a method of an nn.Module runs its forward once per
# generated token, so a branch on the new tokens there syncs on every token (the top-k mask write of a
# number does not: PyTorch 1.10 and later run it as `masked_fill_`; mask_fill_pinned.py has it on an older
# pin). `any()` over per-parameter tensor tests in the training step reads one result per parameter.
import torch
import torch.nn as nn
from torch.nn import functional as F


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(16, 100)

    def forward(self, idx):
        return self.head(idx.float())

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, top_k=None):
        for _ in range(max_new_tokens):
            logits = self(idx)
            if top_k is not None:
                v, _ = torch.topk(logits, top_k)
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
            if (idx[:, -1] == 0).all():  # error: [TL102]
                break
        return idx


model = GPT().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    loss = model(torch.randn(4, 16, device="cuda")).sum()
    loss.backward()
    if any(not torch.isfinite(p.grad).all() for p in model.parameters()):  # error: [TL102]
        continue
    optimizer.step()
