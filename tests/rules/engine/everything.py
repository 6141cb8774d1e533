# All rules together on a small but complete training script.
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--log-every", type=int, default=100)
args = parser.parse_args()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(784, 1000), nn.ReLU(), nn.Linear(1000, 10))

    def forward(self, x):
        return self.body(x.flatten(1))


model = Net().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(train_set, batch_size=128, shuffle=True)  # error: [TL201, TL202]

for epoch in range(args.epochs):
    for step, (images, labels) in enumerate(loader):  # error: [TL402, TL403]
        images, labels = images.to(device), labels.to(device)
        logits = model(images)
        loss = nn.functional.cross_entropy(logits, labels)
        optimizer.zero_grad(set_to_none=False)  # error: [TL301]
        loss.backward()
        optimizer.step()
        acc = (logits.argmax(1) == labels).float().mean().item()  # error: [TL101]
        if step % args.log_every == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f} acc {acc:.3f}")
