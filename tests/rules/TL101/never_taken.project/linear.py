# torchlint-test: select=TL101
import torch

from utils import evaluate

model = torch.nn.Linear(8, 2).cuda()
for epoch in range(10):
    evaluate(model, val_loader, "cuda")
