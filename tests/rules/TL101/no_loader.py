# torchlint-test: select=TL101
# No DataLoader: the step loop is the one that calls backward() and step().
import torch

model = torch.nn.Linear(128, 128).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for i in range(1000):
    x = torch.randn(64, 128, device="cuda")
    loss = model(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    for name, p in model.named_parameters():
        # A per-element loop inside the step loop still runs every step.
        print(name, p.grad.abs().max().item())  # error: [TL101]
    losses = [loss.item() for _ in range(2)]  # error: [TL101]

for name, p in model.named_parameters():
    print(name, p.data.sum().item())
