# torchlint-test: select=TL101
import torch
import torch.distributed as dist


class MetricLogger:
    def __init__(self):
        self.meters = {}

    def update(self, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):
                v = v.item()  # related: [TL101]
            self.meters[k] = v


def reduce_dict(input_dict):
    # Its result holds tensors: the stacked values, one per key.
    if not dist.is_initialized():
        return input_dict
    names = sorted(input_dict.keys())
    values = torch.stack([input_dict[k] for k in names], dim=0)
    dist.all_reduce(values)
    reduced = {k: v for k, v in zip(names, values)}
    return reduced


def host_counts(input_dict):
    # A dict of Python numbers.
    return {k: float(len(str(k))) for k in input_dict}
