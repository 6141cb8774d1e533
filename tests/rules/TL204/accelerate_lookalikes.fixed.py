# torchlint-test: select=TL204
# Look-alikes: loaders that Hugging Face Accelerate prepares put each batch on the device themselves
# (`device_placement=True` by default), so a `.to(device)` of their batches copies nothing, whether the
# loader is prepared alone, in a tuple with the model, or before a `cycle()` generator. The last loop's
# loader is the same pinned loader, not prepared: its copy is reported.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader

accelerator = Accelerator()
device = accelerator.device
model = torch.nn.Linear(8, 2).to(device)
optimizer = torch.optim.AdamW(model.parameters())
train_dl = DataLoader(train_set, batch_size=8, num_workers=2, pin_memory=True)
val_dl = DataLoader(val_set, batch_size=8, num_workers=2, pin_memory=True)
raw_dl = DataLoader(val_set, batch_size=8, num_workers=2, pin_memory=True)
model, optimizer, train_dl = accelerator.prepare(model, optimizer, train_dl)
val_dl = accelerator.prepare(val_dl)

for epoch in range(3):
    for x, y in train_dl:
        x, y = x.to(device), y.to(device)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        accelerator.backward(loss)
        optimizer.step()
    for x, y in val_dl:
        x = x.to(device)
    for x, y in raw_dl:
        x = x.to(device, non_blocking=True)  # error: [TL204]
