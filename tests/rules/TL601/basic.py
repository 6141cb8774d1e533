# torchlint-test: select=TL601
import argparse

import torch
from torch.nn.parallel import DistributedDataParallel as DDP

ACCUM = 4


def train(model, loader, optimizer, rank):
    model = DDP(model.to(rank), device_ids=[rank])
    for i, (x, y) in enumerate(loader):
        loss = model(x.to(rank)).sum() / ACCUM
        loss.backward()  # error: [TL601]
        if (i + 1) % ACCUM == 0:
            optimizer.step()
            optimizer.zero_grad()


def train_with_period(model, loader, optimizer, rank, update_freq):
    # The period is what the caller passes: 1 below, but the loop is written to accumulate when it is set.
    model = DDP(model.to(rank), device_ids=[rank])
    for i, (x, y) in enumerate(loader):
        loss = model(x.to(rank)).sum() / update_freq
        loss.backward()  # error: [TL601]
        if (i + 1) % update_freq == 0:
            optimizer.step()
            optimizer.zero_grad()


def train_every_step(model, loader, optimizer, rank):
    # A period of the constant 1: a step on every iteration, no accumulation.
    model = DDP(model.to(rank), device_ids=[rank])
    for i, (x, y) in enumerate(loader):
        model(x.to(rank)).sum().backward()
        if (i + 1) % 1 == 0:
            optimizer.step()
            optimizer.zero_grad()


def train_skipping(model, loader, optimizer, rank, args):
    # `continue` until the period is reached: the step after it runs once every update_freq iterations,
    # an option of the run (default 1, as SLIP's --update-freq), written to accumulate when it is set.
    model = DDP(model.to(rank), device_ids=[rank])
    for i, (x, y) in enumerate(loader):
        loss = model(x.to(rank)).sum() / args.update_freq
        loss.backward()  # error: [TL601]
        if (i + 1) % args.update_freq != 0:
            continue
        optimizer.step()
        optimizer.zero_grad()


def train_skipping_never(model, loader, optimizer, rank):
    # The constant 1 never skips: a step on every iteration.
    model = DDP(model.to(rank), device_ids=[rank])
    for i, (x, y) in enumerate(loader):
        model(x.to(rank)).sum().backward()
        if (i + 1) % 1 != 0:
            continue
        optimizer.step()
        optimizer.zero_grad()


train_with_period(torch.nn.Linear(8, 8), [], None, 0, 1)
parser = argparse.ArgumentParser()
parser.add_argument("--update-freq", type=int, default=1)
train_skipping(torch.nn.Linear(8, 8), [], None, 0, parser.parse_args())
