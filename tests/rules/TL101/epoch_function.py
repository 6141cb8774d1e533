# torchlint-test: select=TL101
import torch


def train_one_epoch(model, train_loader, optimizer):
    model.train()
    for x, y in train_loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total = loss.detach()
    return total


def evaluate(model, val_loader):
    correct = 0
    with torch.no_grad():
        for x, y in val_loader:
            correct += (model(x.cuda()).argmax(1) == y.cuda()).sum().item()  # error: [TL101]
    return correct


for epoch in range(90):
    loss = train_one_epoch(model, train_loader, optimizer)
    print(f"epoch {epoch} loss {loss.item()}")
    acc = evaluate(model, val_loader)
