# torchlint-test: select=TL102
# A loop over a model's parameters yields tensors: a clipping helper that branches on a gradient's norm
# reads the device for every parameter, every step. Their metadata does not.
import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(range(8), batch_size=2, num_workers=2, pin_memory=True)


def clip_gradients(model, clip):
    for name, p in model.named_parameters():
        if p.grad is not None:
            clip_coef = clip / (p.grad.data.norm(2) + 1e-6)
            if clip_coef < 1:  # error: [TL102]
                p.grad.data.mul_(clip_coef)


def count(model):
    total = 0
    for name, p in model.named_parameters():
        if p.requires_grad and p.dim() > 1 and name.startswith("weight"):
            total += p.numel()
    for p in model.parameters():
        if p.grad is None or p.ndim == 1:
            continue
    return total


for x, y in loader:
    loss = (model(x.cuda(non_blocking=True)) - y.cuda(non_blocking=True)).pow(2).mean()
    loss.backward()
    clip_gradients(model, 1.0)
    count(model)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
