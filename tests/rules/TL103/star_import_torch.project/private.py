# torchlint-test: select=TL103,TL202,TL205
# A star import binds utils' public names only: `_private_torch` is not bound here. A periodic call is
# not per step.
from utils import *

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step, x in enumerate(make_loader(list(range(64)))):
    loss = model(x.cuda(non_blocking=True)).sum()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    _private_torch.cuda.empty_cache()
    if step % 100 == 0:
        torch.cuda.empty_cache()
