# torchlint-test: select=TL204
# The pinned loaders reach the copy through a chain of helpers, each called from one place (the
# training function hands `train_loader` to `evaluate_model`, which hands it to `calc_loss_loader`): a
# step through a single caller or a single return costs the chain no more than a name does, so the
# batches `calc_loss_batch` copies are followed back to their `DataLoader`. The unpinned loaders of the
# second chain stay silent.
import torch
from torch.utils.data import DataLoader


def create_loader(data, num_workers=0):
    loader = DataLoader(data, batch_size=4, num_workers=num_workers, pin_memory=True)
    return loader


def calc_loss_batch(input_batch, target_batch, model, device):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)  # error: [TL204, TL204]
    return model(input_batch).sum() + target_batch.sum()


def calc_loss_loader(data_loader, model, device, num_batches=None):
    total = 0.0
    for i, (input_batch, target_batch) in enumerate(data_loader):
        if i < num_batches:
            total += calc_loss_batch(input_batch, target_batch, model, device).item()
        else:
            break
    return total


def evaluate_model(model, train_loader, val_loader, device, eval_iter):
    model.eval()
    with torch.no_grad():
        train_loss = calc_loss_loader(train_loader, model, device, num_batches=eval_iter)
        val_loss = calc_loss_loader(val_loader, model, device, num_batches=eval_iter)
    model.train()
    return train_loss, val_loss


def train_model(model, train_loader, val_loader, optimizer, device, eval_freq):
    for step, (inp, tgt) in enumerate(train_loader):
        optimizer.zero_grad()
        loss = calc_loss_batch(inp, tgt, model, device)
        loss.backward()
        optimizer.step()
        if step % eval_freq == 0:
            evaluate_model(model, train_loader, val_loader, device, 1)


def unpinned_copy(x, device):
    return x.to(device)


def train_unpinned(model, loader, device):
    for x, _ in loader:
        unpinned_copy(x, device).sum().backward()


device = torch.device("cuda")
model = torch.nn.Linear(8, 8).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_loader = create_loader(list(range(100)), num_workers=4)
val_loader = create_loader(list(range(20)), num_workers=4)
train_model(model=model, train_loader=train_loader, val_loader=val_loader, optimizer=optimizer, device=device,
            eval_freq=10)
train_unpinned(model, DataLoader(list(range(100)), batch_size=4, num_workers=4), device)
