# torchlint-test: select=TL101
# A generator made and consumed on every step (`next(cycle())` in the loop) runs its body every step; one
# consumed once before the loop does not.
import torch

device = "cuda"
model = torch.nn.Linear(4, 4).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def cycle():
    while True:
        src = torch.randn(8, 4, device=device)
        print(src.sum().item())  # error: [TL101]
        yield src


def once():
    while True:
        src = torch.randn(8, 4, device=device)
        print(src.sum().item())
        yield src


first = next(once())
for i in range(100):
    x = next(cycle())
    loss = model(x).sum()
    loss.backward()
    opt.step()
