# torchlint-test: select=TL601
# An MAE-shaped project: the model is wrapped in DDP here, the loop is in engine.py, and the loss
# scaler that runs backward and (when asked) the optimizer step is a class of util/misc.py.
import argparse

import torch
from torch.nn.parallel import DistributedDataParallel

from engine import train_one_epoch, train_every_step
from util.misc import AlwaysSteps, NativeScaler, SometimesBackward

parser = argparse.ArgumentParser()
parser.add_argument("--accum_iter", default=1, type=int)
args = parser.parse_args()
model = DistributedDataParallel(torch.nn.Linear(8, 8).cuda())
optimizer = torch.optim.AdamW(model.parameters())
loss_scaler = NativeScaler()
for epoch in range(10):
    train_one_epoch(model, loader, optimizer, loss_scaler, args)
    train_every_step(model, loader, optimizer, AlwaysSteps(), NativeScaler(), SometimesBackward(), args)


def local_loop(model, loader, optimizer, scaler, accum):
    # The scaler's class comes from this file's own call.
    for i, (x, y) in enumerate(loader):
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
        scaler(loss, optimizer, update_grad=(i + 1) % accum == 0)  # error: [TL601]


local_loop(model, loader, optimizer, NativeScaler(), 4)
