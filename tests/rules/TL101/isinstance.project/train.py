# torchlint-test: select=TL101
# The sampler is one of several classes; an `isinstance` guard says which one the call reaches.
import torch

from sampler import LossAwareSampler, QuietSampler


class Trainer:
    def __init__(self, model, sampler=None):
        self.model = model.cuda()
        self.sampler = sampler or QuietSampler()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def run(self, loader):
        for x, t in loader:
            losses = self.model(x.cuda()).pow(2).mean(dim=1)
            if isinstance(self.sampler, LossAwareSampler):
                self.sampler.update_with_local_losses(t, losses.detach())  # error: [TL101]
            if isinstance(self.sampler, QuietSampler) and t is not None:
                self.sampler.update_with_local_losses(t, losses.detach())
            self.sampler.update_with_local_losses(t, losses.detach())
            losses.mean().backward()
            self.opt.step()
