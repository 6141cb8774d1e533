# torchlint-test: select=TL402
# AMP behind a flag: the code has mixed precision, off by default. Not reported.
import argparse

import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--amp", action="store_true")
args = parser.parse_args()

model = torch.nn.Linear(512, 512).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
ctx = torch.autocast("cuda") if args.amp else None

for x, y in DataLoader(range(8)):
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
