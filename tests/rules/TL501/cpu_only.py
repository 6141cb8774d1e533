# torchlint-test: select=TL501 target-torch=2.3
# A CPU-only script: fused=True would need CUDA parameters.
import torch

model = torch.nn.Linear(10, 10)
b = torch.optim.Adam(model.parameters(), foreach=False)
