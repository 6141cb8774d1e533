# torchlint-test: select=TL205 unsafe-fixes
# The random factories draw from another generator on the device: an unsafe fix.
import torch

noise = torch.randn(16, 128, device="cuda")  # error: [TL205]
perm = torch.randperm(100, device="cuda")  # error: [TL205]
