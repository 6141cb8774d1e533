# torchlint-test: select=TL203
# The worker count is another module's option (default 4): the loader restarts 4 workers every epoch.
import torch
from torch.utils.data import DataLoader

from option import args

model = torch.nn.Linear(8, 8).cuda()
loader = DataLoader(list(range(64)), batch_size=8, num_workers=args.num_workers)  # error: [TL203]
for epoch in range(args.epochs):
    for x in loader:
        model(x.cuda()).sum().backward()
