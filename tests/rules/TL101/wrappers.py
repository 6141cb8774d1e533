# torchlint-test: select=TL101,TL102
import torch
from tqdm import tqdm
from torch.utils.data import DataLoader

train_loader = DataLoader(train_set, batch_size=32)
aux_loader = DataLoader(aux_set, batch_size=32)
device = "cuda" if torch.cuda.is_available() else "cpu"

pbar = tqdm(train_loader)
for batch in pbar:
    pbar.set_postfix(loss=batch.sum().item())  # error: [TL101]

for step, (a, b) in enumerate(zip(train_loader, aux_loader)):
    print(a.mean().item())  # error: [TL101]

for i, batch in enumerate(tqdm(train_loader, desc="train")):
    if batch.isnan().any():  # error: [TL102]
        continue

# Per-element loop: over parameters, not batches, and outside any step loop.
for p in model.parameters():
    print(p.norm().item())
