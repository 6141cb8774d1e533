# torchlint-test: select=TL501 target-torch=2.3
# SAM's `first_step` updates the parameters one tensor at a time; train.py's training step calls it, and
# is where it is reported. `second_step` restores them from saved state, and is not reported.
import torch


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, **kwargs):
        super().__init__(params, dict(**kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:  # related: [TL501]
                if p.grad is None:
                    continue
                self.state[p]["old_p"] = p.data.clone()
                p.add_(p.grad * 0.05)

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                p.data = self.state[p]["old_p"]
        self.base_optimizer.step()
