# torchlint-test: select=TL101
# Guards written as real training loops write them, each taken as not running every step:
# - a helper of the file that is a modulo test (`divisible_by(step, save_every)`);
# - `done or tick % snapshot_ticks == 0`, with `done` a flag the loop breaks on (`if done: break`);
# - `iteration == 0 or iteration % val_every == 0`, with `iteration` a counter the loop increments by one.
# Look-alikes that run every step, and are reported: the helper given a period of 1, a flag the loop
# does not leave on, a running total that grows by the batch size (it is 0 once, or never), and a
# counter the loop resets (`streak = 0` whenever the loss rises: 0 again and again).
import torch

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def divisible_by(numer, denom):
    return (numer % denom) == 0


def train(total, save_every=1000, snapshot_ticks=50, val_every=500, batch_size=32):
    cur = 0
    tick = 0
    iteration = 0
    seen = 0
    slow = False
    streak = 0
    best = None
    while True:
        loss = model(torch.randn(batch_size, 8, device="cuda")).sum()
        loss.backward()
        optimizer.step()
        iteration += 1
        seen += batch_size
        cur += batch_size
        done = cur >= total
        if divisible_by(iteration, save_every):
            print(loss.item())
        if divisible_by(iteration, 1):
            print(loss.item())  # error: [TL101]
        if done or tick % snapshot_ticks == 0:
            print(loss.cpu())
        if slow or tick % snapshot_ticks == 0:
            print(loss.cpu())  # error: [TL101]
        if iteration == 0 or iteration % val_every == 0:
            print(loss.tolist())
        if seen == 0 or iteration % val_every == 0:
            print(loss.tolist())  # error: [TL101]
        streak += 1
        if best is not None and cur > best:
            streak = 0
        best = cur
        if streak == 0 or iteration % val_every == 0:
            print(loss.tolist())  # error: [TL101]
        tick += 1
        slow = cur > total // 2
        if done:
            break
