# torchlint-test: select=TL101
import torch
from torch import nn, optim
from torch.utils.data import DataLoader as DL


def log_metrics(loss, acc):
    print(f"loss={loss.item():.4f}")  # error: [TL101]
    record(acc)


def record(acc):
    history.append(acc.cpu())  # error: [TL101]


def rarely(loss):
    # Only called under a periodic guard: not per step.
    print(loss.item())


def summarize(model):
    # Only called once per epoch.
    for p in model.parameters():
        print(p.grad.norm().item())


def train_step(model, batch, optimizer):
    x, y = batch
    out = model(x.cuda())
    loss = nn.functional.cross_entropy(out, y.cuda())
    loss.backward()
    optimizer.step()
    log_metrics(loss, (out.argmax(1) == y.cuda()).float().mean())
    return loss


class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = optim.AdamW(model.parameters())

    def fit(self, epochs):
        for epoch in range(epochs):
            for step, batch in enumerate(self.loader):
                loss = self.training_step(batch)
                if step % 100 == 0:
                    rarely(loss)
            summarize(self.model)

    def training_step(self, batch):
        loss = self.model(batch).mean()
        loss.backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
        self.log(loss)
        return loss

    def log(self, loss):
        print(loss.item())  # error: [TL101]


def main():
    model = nn.Linear(64, 64).cuda()
    loader = DL(range(10), batch_size=2)
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        for batch in loader:
            train_step(model, batch, optimizer)
        summarize(model)
