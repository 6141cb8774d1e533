# torchlint-test: select=TL204
# A helper called with batches of two loaders, both pinned; the copy in the `else` branch reads the
# batch, not the tensor the `if` branch moved.
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")


def run_validate(model, loader, gpu=None):
    for images, target in loader:
        if gpu is not None:
            images = images.cuda(gpu, non_blocking=True)
        else:
            images = images.to(device)  # error: [TL204]
        model(images)


def validate(model, val_set, rest_set):
    val_loader = DataLoader(val_set, batch_size=8, num_workers=2, pin_memory=True)
    run_validate(model, val_loader)
    rest_loader = DataLoader(rest_set, batch_size=8, num_workers=2, pin_memory=True)
    run_validate(model, rest_loader)
