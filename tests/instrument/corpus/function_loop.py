"""Loop inside a function, called from a main guard."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def train(model, loader, optimizer, criterion):
    model.train()
    for inputs, targets in loader:
        # move the batch
        inputs = inputs.float()
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model


if __name__ == "__main__":
    data = TensorDataset(torch.randn(64, 16), torch.randint(0, 4, (64,)))
    loader = DataLoader(data, batch_size=8)
    model = nn.Linear(16, 4)
    train(model, loader, torch.optim.SGD(model.parameters(), lr=0.1), nn.CrossEntropyLoss())
