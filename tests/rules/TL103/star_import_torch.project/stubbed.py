# torchlint-test: select=TL103,TL202,TL205
# `torch` here is fake's own object, not an import: a star import brings no module, so its calls are
# not torch's.
import torch as th

from fake import *

model = th.nn.Linear(8, 8).cuda()
optimizer = th.optim.SGD(model.parameters(), lr=0.1)
for x in th.utils.data.DataLoader(list(range(64)), num_workers=2, pin_memory=True):
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    torch.cuda.empty_cache()
