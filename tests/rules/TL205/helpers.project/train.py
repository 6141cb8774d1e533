# torchlint-test: select=TL205
# The device is chosen here; the sampler's helper in sampler.py makes its buffers on the host.
import torch

from sampler import Sampler, batches

device = torch.device("cuda")
model = torch.nn.Linear(4, 4).to(device)
sampler = Sampler()
for src, mask in batches(8):
    loss = model(src).sum()
    sampler.update(loss.detach(), [8])
