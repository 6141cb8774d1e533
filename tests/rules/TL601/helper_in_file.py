# torchlint-test: select=TL601
# A helper of the same file runs the backward on every call and steps only when its flag says so; the
# training loop passes the flag a periodic condition, through a name (LoRA's gpt2_ft.py shape).
import torch
from torch.nn.parallel import DistributedDataParallel


def optimizer_step(_loss, _optimizer, _model, args, is_update=True):
    if args.fp16:
        _loss.half().backward()
    else:
        _loss.backward()
    if is_update:
        _optimizer.step()
        _optimizer.zero_grad()


def train(model, loader, optimizer, args, rank):
    model = DistributedDataParallel(model.to(rank), device_ids=[rank])
    train_step = 0
    for idx, (x, y) in enumerate(loader):
        loss = model(x.to(rank)).mean()
        train_step += 1
        is_update = True if train_step % args.grad_acc == 0 else False
        optimizer_step(loss / args.grad_acc, optimizer, model, args, is_update=is_update)  # error: [TL601]


def train_direct(model, loader, optimizer, args, rank):
    model = DistributedDataParallel(model.to(rank), device_ids=[rank])
    for idx, (x, y) in enumerate(loader):
        loss = model(x.to(rank)).mean()
        optimizer_step(loss, optimizer, model, args, (idx + 1) % args.grad_acc == 0)  # error: [TL601]


def train_flag_in_loop(model, loader, optimizer, rank, accum):
    # The flag tested in the loop itself.
    model = DistributedDataParallel(model.to(rank), device_ids=[rank])
    for i, (x, y) in enumerate(loader):
        model(x.to(rank)).sum().backward()  # error: [TL601]
        do_step = (i + 1) % accum == 0
        if do_step:
            optimizer.step()
            optimizer.zero_grad()


def train_every_step(model, loader, optimizer, args, rank):
    # The flag is always true: every call steps.
    model = DistributedDataParallel(model.to(rank), device_ids=[rank])
    for idx, (x, y) in enumerate(loader):
        loss = model(x.to(rank)).mean()
        optimizer_step(loss, optimizer, model, args, is_update=True)


def train_at_epoch_end(model, loader, optimizer, args, rank):
    # A flag that is not periodic: the last batch of the loader.
    model = DistributedDataParallel(model.to(rank), device_ids=[rank])
    for idx, (x, y) in enumerate(loader):
        loss = model(x.to(rank)).mean()
        last = idx == len(loader) - 1
        optimizer_step(loss, optimizer, model, args, is_update=last)


def log_step(_loss, writer, is_update=True):
    # No backward here: not a training helper.
    if is_update:
        writer.add_scalar("loss", _loss)


def train_logging(model, loader, optimizer, writer, args, rank):
    model = DistributedDataParallel(model.to(rank), device_ids=[rank])
    for idx, (x, y) in enumerate(loader):
        loss = model(x.to(rank)).mean()
        loss.backward()
        optimizer.step()
        log_step(loss, writer, is_update=(idx + 1) % args.log_every == 0)
