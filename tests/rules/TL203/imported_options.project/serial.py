# torchlint-test: select=TL203
# Imported options with no workers: nothing to keep alive between epochs.
import torch

from option_serial import args

model = torch.nn.Linear(8, 8).cuda()
loader = torch.utils.data.DataLoader(list(range(64)), num_workers=args.num_workers)
for epoch in range(10):
    for x in loader:
        model(x.cuda()).sum().backward()
