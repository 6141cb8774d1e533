# torchlint-test: select=TL301 target-torch=1.13 unsafe-fixes
import torch

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    optimizer.zero_grad(set_to_none=True)  # error: [TL301]
    model.zero_grad(set_to_none=True)  # error: [TL301]
    optimizer.zero_grad(set_to_none=True)  # error: [TL301]
    optimizer.zero_grad(set_to_none=True)
    optimizer.zero_grad(True)
    optimizer.zero_grad(set_to_none=args.none)
    zero_grad()
    for p in model.parameters():
        p.grad.zero_()
