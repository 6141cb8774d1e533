# torchlint-test: select=TL101
# evaluate() is called from linear.py only, which never passes a criterion: the branch that logs the loss
# never runs. The accuracy's `.item()` runs on every batch.
import torch


@torch.no_grad()
def evaluate(model, data_loader, device, criterion=None):
    correct = 0
    for samples, targets in data_loader:
        outputs = model(samples.to(device))
        targets = targets.to(device)
        if criterion is not None:
            loss = criterion(outputs, targets)
            print(loss.item())
        correct += (outputs.argmax(1) == targets).sum().item()  # error: [TL101]
    return correct
