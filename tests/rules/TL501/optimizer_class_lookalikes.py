# torchlint-test: select=TL501 target-torch=2.3
# Not reported: a `step` that only reads the parameters (a norm, a flag), an optimizer class never
# stepped by a training loop, a class that is not a `torch.optim.Optimizer` (an EMA of the weights),
# an optimizer whose `step` uses `torch._foreach_*` ops, and an optimizer stepped once outside the loop.
import torch


class GradNorm(torch.optim.Optimizer):
    def step(self):
        total = 0.0
        for group in self.param_groups:
            for p in group["params"]:
                if group["weight_decay"] > 0:
                    total += p.grad.norm()
        return total


class Unused(torch.optim.Optimizer):
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                p.add_(p.grad, alpha=-group["lr"])


class Ema:
    def __init__(self, groups):
        self.param_groups = groups

    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                p.mul_(0.999).add_(p.grad, alpha=0.001)


class ForeachSGD(torch.optim.Optimizer):
    def step(self):
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            torch._foreach_add_(params, [p.grad for p in params], alpha=-group["lr"])


class OnceOnly(torch.optim.Optimizer):
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                p.add_(p.grad, alpha=-group["lr"])


def train(model, loader):
    clip = GradNorm(model.parameters(), {"weight_decay": 0.0})
    ema = Ema([{"params": list(model.parameters())}])
    fast = ForeachSGD(model.parameters(), {"lr": 0.1})
    unused = Unused(model.parameters(), {"lr": 0.1})
    once = OnceOnly(model.parameters(), {"lr": 0.1})
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        clip.step()
        fast.step()
        ema.step()
    once.step()
