# torchlint-test: select=TL501 target-torch=2.3
# The optimizer class only: the training step that runs it is in train.py, where it is reported.
import torch


class LARS(torch.optim.Optimizer):
    def __init__(self, params, lr=0.1):
        super().__init__(params, dict(lr=lr))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:  # related: [TL501]
                if p.grad is None:
                    continue
                update = p.grad.add(p, alpha=1e-4)
                p.add_(update, alpha=-group["lr"])


class Unused(torch.optim.Optimizer):
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                p.add_(p.grad, alpha=-group["lr"])
