"""A step loop nested in an epoch loop, over enumerate(tqdm(loader))."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

try:
    from tqdm import tqdm
except ImportError:  # the progress bar is optional
    def tqdm(iterable, **kwargs):
        return iterable


def main():
    data = TensorDataset(torch.randn(64, 16), torch.randint(0, 4, (64,)))
    train_loader = DataLoader(data, batch_size=8, shuffle=True)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(3):
        model.train()
        for step, (x, y) in enumerate(tqdm(train_loader, desc=f"epoch {epoch}")):
            optimizer.zero_grad(set_to_none=True)
            logits = model(x)
            loss = criterion(logits, y)
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch} done")


if __name__ == "__main__":
    main()
