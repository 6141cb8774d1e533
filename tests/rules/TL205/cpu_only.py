# torchlint-test: select=TL205
# No GPU in the script: nothing to move to.
import torch

x = torch.zeros(3).to(device)
