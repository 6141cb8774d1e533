"""The same kind of loop written the fast way: torchlint reports nothing here.

Workers load batches in parallel, pinned memory lets copies overlap compute, gradients are freed
rather than zeroed, the loss is read once per epoch, the forward pass runs under bf16 autocast, and
the layer sizes are multiples of 8.
"""
import torch
from torch import nn
from torch.utils.data import DataLoader

HIDDEN = 1024


def train(dataset, epochs=10):
    model = nn.Sequential(nn.Linear(512, HIDDEN), nn.GELU(), nn.Linear(HIDDEN, 512)).cuda()
    optimizer = torch.optim.AdamW(model.parameters())
    loader = DataLoader(dataset, batch_size=256, shuffle=True, num_workers=8, pin_memory=True)
    for epoch in range(epochs):
        total = torch.zeros((), device="cuda")
        for batch in loader:
            batch = batch.cuda(non_blocking=True)
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(batch).pow(2).mean()
            loss.backward()
            optimizer.step()
            total += loss.detach()
        print(f"epoch {epoch}: mean loss {total.item() / len(loader):.4f}")
