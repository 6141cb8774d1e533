# torchlint-test: select=TL204
import torch

from data import other_loader
from evaluate import evaluate

model = torch.nn.Linear(8, 2).cuda()
evaluate(model, other_loader(val_set), "cuda")
