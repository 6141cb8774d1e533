# torchlint-test: select=TL101
# Look-alike: knn.py passes a criterion, so the branch that logs the loss runs there on every batch.
# (linear.py leaves it out.)
import torch


@torch.no_grad()
def evaluate(model, data_loader, device, criterion=None):
    correct = 0
    for samples, targets in data_loader:
        outputs = model(samples.to(device))
        targets = targets.to(device)
        if criterion is not None:
            loss = criterion(outputs, targets)
            print(loss.item())  # error: [TL101]
        correct += (outputs.argmax(1) == targets).sum().item()  # error: [TL101]
    return correct
