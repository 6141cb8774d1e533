# torchlint-test: select=TL204
import torch

from data import pinned_loader
from evaluate import evaluate

model = torch.nn.Linear(8, 2).cuda()
evaluate(model, pinned_loader(val_set), "cuda")
