# torchlint-test: select=TL301 target-torch=2.1
import torch

FALSE_FLAG = False

optimizer = torch.optim.AdamW(model.parameters())
for x, y in loader:
    optimizer.zero_grad()
    model.zero_grad()
    optimizer.zero_grad(set_to_none=False)  # error: [TL301]
    optimizer.zero_grad(False)  # error: [TL301]
    optimizer.zero_grad(set_to_none=FALSE_FLAG)  # error: [TL301]
    optimizer.zero_grad(set_to_none=True)
