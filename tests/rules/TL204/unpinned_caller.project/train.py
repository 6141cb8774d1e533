# torchlint-test: select=TL204
# Look-alike: this caller's loader does not pin its memory.
import torch
from torch.utils.data import DataLoader

from evaluate import evaluate

val_loader = DataLoader(val_set, batch_size=8, num_workers=2, pin_memory=False)
device = torch.device("cuda")
model = torch.nn.Linear(8, 2).to(device)
score = evaluate(model, val_loader, device)
