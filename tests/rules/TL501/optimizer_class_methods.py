# torchlint-test: select=TL501 target-torch=2.3
# A method of an optimizer class other than `step` (SAM's `first_step`) that updates the parameters one
# tensor at a time, called by the training step: reported at its loop, with the call related. Its
# look-alikes stay silent: a method that restores the parameters from saved state, one that only reads
# them, a class that is not a `torch.optim.Optimizer`, and a call outside the training step.
import torch


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        super().__init__(params, dict(rho=rho, **kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = self._grad_norm()
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:  # error: [TL501]
                if p.grad is None:
                    continue
                self.state[p]["old_p"] = p.data.clone()
                e_w = p.grad * scale.to(p)
                p.add_(e_w)
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.data = self.state[p]["old_p"]
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()

    def _grad_norm(self):
        norms = []
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    norms.append(p.grad.norm(p=2))
        return torch.norm(torch.stack(norms), p=2)


class Perturbation:
    # Not an optimizer: the same loop, outside the rule's scope.
    def __init__(self, params):
        self.params = list(params)

    @torch.no_grad()
    def first_step(self):
        for p in self.params:
            p.add_(p.grad, alpha=0.05)


def train(model, loader, epochs):
    optimizer = SAM(model.parameters(), torch.optim.SGD, lr=0.1, momentum=0.9)
    perturb = Perturbation(model.parameters())
    for epoch in range(epochs):
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            model(x).sum().backward()
            optimizer.first_step(zero_grad=True)  # related: [TL501]
            perturb.first_step()
            model(x).sum().backward()
            optimizer.second_step(zero_grad=True)


def warm_start(model, batch):
    # Once, before training: not a training step.
    optimizer = SAM(model.parameters(), torch.optim.SGD, lr=0.1)
    model(batch.cuda()).sum().backward()
    optimizer.first_step()
