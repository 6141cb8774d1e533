# torchlint-test: select=TL101
import torch

from utils import evaluate

model = torch.nn.Linear(8, 2).cuda()
evaluate(model, val_loader, "cuda", criterion=torch.nn.CrossEntropyLoss())
