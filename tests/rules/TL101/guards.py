# torchlint-test: select=TL101
import argparse

import torch
from torch.utils.data import DataLoader

LOG_EVERY = 50
EVERY_STEP = 1

parser = argparse.ArgumentParser()
parser.add_argument("--log-interval", type=int, default=1)
parser.add_argument("--eval-every", type=int, default=200)
args = parser.parse_args()


def train(model, loader, optimizer, cfg):
    model.cuda()
    for i, (x, y) in enumerate(loader):
        loss = model(x.cuda(), y.cuda())
        loss.backward()
        optimizer.step()
        if i % 100 == 0:
            print(loss.item())
        if (i + 1) % LOG_EVERY == 0:
            print(loss.item())
        if not i % 10:
            print(loss.item())
        if i % args.eval_every == 0 and i > 0:
            print(loss.item())
        if i % cfg.log_every == 0:
            # N unknown: taken as periodic (see TL101's docs).
            print(loss.item())
        if i % EVERY_STEP == 0:
            print(loss.item())  # error: [TL101]
        if i % args.log_interval == 0:
            print(loss.item())  # error: [TL101]
        if i % 100 == 0 or loss.requires_grad:
            print(loss.item())  # error: [TL101]
        if i % 100 == 0:
            pass
        else:
            print(loss.item())  # error: [TL101]
        if i == 0:
            pass
        elif i % 20 == 0:
            print(loss.item())
        if i % 1000 != 0:
            print(loss.item())  # error: [TL101]


def accumulate(model, loader, optimizer, accum_steps):
    model.cuda()
    for step, (x, y) in enumerate(loader):
        loss = model(x.cuda(), y.cuda()) / accum_steps
        loss.backward()
        print(loss.item())  # error: [TL101]
        if (step + 1) % accum_steps != 0:
            continue
        optimizer.step()
        optimizer.zero_grad()
        print(loss.item())
    for step, batch in enumerate(loader):
        loss = model(batch)
        loss.backward()
        if step % 1 != 0:
            continue
        print(loss.item())  # error: [TL101]


def accumulate_bare(model, loader, accum_steps):
    model.cuda()
    for step, (x, y) in enumerate(loader):
        loss = model(x.cuda(), y.cuda())
        loss.backward()
        micro_batches(model, x)
        if step % accum_steps:
            continue
        print(loss.item())


def micro_batches(model, x):
    # Runs every step; its own loop skips three chunks in four.
    for k, chunk in enumerate(x.split(8)):
        loss = model(chunk.cuda())
        print(loss.item())  # error: [TL101]
        if k % 4 != 0:
            continue
        print(loss.item())
