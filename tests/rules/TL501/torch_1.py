# torchlint-test: select=TL501 target-torch=1.13
# No fused optimizers before PyTorch 2.0.
import torch

model = torch.nn.Linear(10, 10).cuda()
b = torch.optim.Adam(model.parameters(), foreach=False)
