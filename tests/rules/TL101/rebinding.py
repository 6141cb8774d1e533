# torchlint-test: select=TL101
# A name's value at a use is the last assignment that runs before it on every path: `H, W = int(H),
# int(W)` after `H, W, focal = hwf` makes Python ints, even when `hwf` came from a tensor (nerf-pytorch's
# run_nerf.py). A tuple of values binds each name to its own element. An assignment in a branch, or
# after the use in the loop, still reaches it.
import torch

device = torch.device("cuda")


def train(args, poses, model, optimizer, loader):
    poses = torch.Tensor(poses).to(device)
    hwf = poses[0, :3, -1]
    H, W, focal = hwf
    H, W = int(H), int(W)
    scale, bias = float(args.scale), model(poses).mean()
    for x, y in loader:
        loss = (model(x.to(device)) - y.to(device)).pow(2).mean()
        loss.backward()
        optimizer.step()
        dH = int(H // 2 * args.precrop_frac)
        dW = int(W // 2 * args.precrop_frac)
        s = float(scale)
        b = float(bias)  # error: [TL101]
        print(int(focal))  # error: [TL101]


def branches(model, optimizer, loader, flag):
    limit = torch.ones(1, device="cuda")
    if flag:
        limit = 10
    for x, y in loader:
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
        loss.backward()
        optimizer.step()
        print(int(limit))  # error: [TL101]
        last = int(loss)  # error: [TL101]
        print(int(last))


def back_edge(model, optimizer, loader):
    prev = 0
    for x, y in loader:
        print(int(prev))  # error: [TL101]
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
        loss.backward()
        optimizer.step()
        prev = loss
