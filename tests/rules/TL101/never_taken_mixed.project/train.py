# torchlint-test: select=TL101
import torch

from utils import evaluate, model

for epoch in range(10):
    evaluate(model, val_loader, criterion=torch.nn.CrossEntropyLoss())
