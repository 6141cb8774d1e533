"""Loop inside a function, called from a main guard."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import contextlib  # torchlint: instrument


def train(model, loader, optimizer, criterion):
    model.train()
    tl_nvtx = torch.cuda.nvtx.range if torch.cuda.is_available() else contextlib.nullcontext  # torchlint: instrument
    for inputs, targets in loader:
        # move the batch
        with tl_nvtx("train_step function_loop.py:11-25"):  # torchlint: instrument indent=4
            with tl_nvtx("other function_loop.py:15-15"):  # torchlint: instrument indent=4
                inputs = inputs.float()
            with tl_nvtx("forward function_loop.py:17-17"):  # torchlint: instrument dedent indent=4
                outputs = model(inputs)
            with tl_nvtx("loss_compute function_loop.py:19-19"):  # torchlint: instrument dedent indent=4
                loss = criterion(outputs, targets)
            with tl_nvtx("optimizer_step function_loop.py:21-21"):  # torchlint: instrument dedent indent=4
                optimizer.zero_grad()
            with tl_nvtx("backward function_loop.py:23-23"):  # torchlint: instrument dedent indent=4
                loss.backward()
            with tl_nvtx("optimizer_step function_loop.py:25-25"):  # torchlint: instrument dedent indent=4
                optimizer.step()
        # torchlint: instrument dedent dedent
    return model


if __name__ == "__main__":
    data = TensorDataset(torch.randn(64, 16), torch.randint(0, 4, (64,)))
    loader = DataLoader(data, batch_size=8)
    model = nn.Linear(16, 4)
    train(model, loader, torch.optim.SGD(model.parameters(), lr=0.1), nn.CrossEntropyLoss())
