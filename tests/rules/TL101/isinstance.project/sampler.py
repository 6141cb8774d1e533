# torchlint-test: select=TL101
# No device in this file: train.py, which imports it, runs on CUDA.
import torch


class Sampler:
    def weights(self):
        return [1.0]


class LossAwareSampler(Sampler):
    def update_with_local_losses(self, local_ts, local_losses):
        sizes = [torch.tensor([len(local_ts)], device=local_ts.device)]
        counts = [x.item() for x in sizes]  # related: [TL101]
        return counts


class QuietSampler(Sampler):
    def update_with_local_losses(self, local_ts, local_losses):
        return len(local_ts)
