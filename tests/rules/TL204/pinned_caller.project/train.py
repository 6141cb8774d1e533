# torchlint-test: select=TL204
# The validation loader is pinned here and handed to evaluate() of evaluate.py.
import torch
from torch.utils.data import DataLoader

from evaluate import evaluate

loader_args = dict(batch_size=8, num_workers=2, pin_memory=True)
val_loader = DataLoader(val_set, shuffle=False, **loader_args)
device = torch.device("cuda")
model = torch.nn.Linear(8, 2).to(device)
score = evaluate(model, val_loader, device)
