# torchlint-test: select=TL101
import torch


class MetricLogger:
    def __init__(self):
        self.meters = {}

    def update(self, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):
                v = v.item()  # related: [TL101]
            self.meters[k] = v


def all_reduce_mean(x):
    return x.mean().item()  # related: [TL101]


def rarely_syncs(x, step):
    if step % 100 == 0:
        print(x.item())


def log_scalar(value):
    print(value)


def maybe_synchronize(timing=False):
    # Only when the caller asks for timings: not a sync of every call.
    if timing:
        torch.cuda.synchronize()
