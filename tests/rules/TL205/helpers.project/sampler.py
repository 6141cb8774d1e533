# torchlint-test: select=TL205
# No device in this file: train.py, which imports it, runs on CUDA.
import torch


class Sampler:
    def update(self, losses, sizes):
        padded = [torch.zeros(n).to(losses) for n in sizes]  # error: [TL205]
        counts = torch.tensor(sizes).to(losses)
        host = torch.zeros(2)
        kept = torch.zeros(2).to(host)
        return padded, counts, kept


def batches(size):
    while True:
        src = torch.randn(size, 4).float().to("cuda")  # error: [TL205]
        mask = torch.ones(size).bool()
        yield src, mask
