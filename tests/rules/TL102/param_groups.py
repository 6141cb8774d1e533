# torchlint-test: select=TL102
# An optimizer's own step: `group["params"]` of a loop over `self.param_groups` holds the parameter
# tensors, so a trust ratio that branches on their norms reads the device for every parameter, every
# step. The left operand of `or` is what Python reads first, however long the right one's derivation.
import torch
from torch.optim import Optimizer


class TrustRatio(Optimizer):
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p.data)
                    state["exp_avg_sq"] = torch.zeros_like(p.data)
                state["step"] += 1
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                grad = p.grad.data
                beta1, beta2 = group["betas"]
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                weight_norm = p.data.pow(2).sum().sqrt().clamp(0, 10)
                adam_step = exp_avg / exp_avg_sq.sqrt().add(group["eps"])
                if group["weight_decay"] != 0:
                    adam_step.add_(p.data, alpha=group["weight_decay"])
                adam_norm = adam_step.pow(2).sum().sqrt()
                if weight_norm == 0 or adam_norm == 0:  # error: [TL102]
                    ratio = 1
                else:
                    ratio = weight_norm / adam_norm
                p.data.add_(adam_step, alpha=-group["lr"] * ratio)
        # Look-alikes: the hyper-parameters of a group are numbers, and so is a loop over plain dicts.
        for group in self.param_groups:
            if group["lr"] > 1:
                group["lr"] = 1
        for group in [{"params": [1, 2]}]:
            for p in group["params"]:
                if p > 1:
                    pass


model = torch.nn.Linear(8, 8).cuda()
optimizer = TrustRatio(model.parameters(), {"lr": 0.1, "eps": 1e-6, "weight_decay": 0.0, "betas": (0.9, 0.999)})


def train(loader):
    for x, y in loader:
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
        loss.backward()
        optimizer.step()
