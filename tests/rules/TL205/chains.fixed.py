# torchlint-test: select=TL205
# Dtype casts between the factory and the move, and moves to another tensor's device.
import torch

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def cycle(batch, length):
    while True:
        prefix = torch.ones((batch, 1), device=DEVICE).long()  # error: [TL205]
        src = torch.randint(2, 18, (batch, length)).long().to(DEVICE)  # error: [TL205]
        mask = torch.ones(batch, length, device=DEVICE).bool().half()  # error: [TL205]
        yield prefix, src, mask


def gather(local_ts, losses, sizes):
    timesteps = [torch.zeros(n).to(local_ts) for n in sizes]  # error: [TL205]
    padded = torch.zeros(8).to(losses.detach())  # error: [TL205]
    host = torch.arange(4)
    as_host = torch.zeros(4).to(host)
    from_data = torch.tensor(sizes).long().to(DEVICE)
    summed = torch.ones(3).sum().to(DEVICE)
    return timesteps, padded, as_host, from_data, summed
