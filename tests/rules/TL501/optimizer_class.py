# torchlint-test: select=TL501 target-torch=2.3
# Optimizer classes of the file whose `step` updates the parameters one tensor at a time, stepped by the
# training loop: reported at the loop over a group's parameters, with the training step's call related.
import torch
from torch import optim


class LARS(optim.Optimizer):
    def __init__(self, params, lr, momentum=0.9):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @torch.no_grad()
    def step(self):
        for g in self.param_groups:
            for p in g["params"]:  # error: [TL501]
                dp = p.grad
                if dp is None:
                    continue
                dp = dp.add(p, alpha=1e-4)
                param_state = self.state[p]
                if "mu" not in param_state:
                    param_state["mu"] = torch.zeros_like(p)
                mu = param_state["mu"]
                mu.mul_(g["momentum"]).add_(dp)
                p.add_(mu, alpha=-g["lr"])


class BaseOptimizer(torch.optim.Optimizer):
    pass


class PlainSGD(BaseOptimizer):
    def step(self, closure=None):
        for group in self.param_groups:
            for param in group["params"]:  # error: [TL501]
                param.data -= group["lr"] * param.grad.data


def train(model, loader):
    optimizer = LARS(model.parameters(), lr=0.1)
    scaler = torch.cuda.amp.GradScaler()
    for x, y in loader:
        optimizer.zero_grad()
        with torch.cuda.amp.autocast():
            loss = model(x.cuda()).sum()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def finetune(model, loader):
    sgd = PlainSGD(model.parameters(), dict(lr=0.1))
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        sgd.step()
