"""A step loop nested in an epoch loop, over enumerate(tqdm(loader))."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
import contextlib  # torchlint: instrument

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
    tl_nvtx = torch.cuda.nvtx.range if torch.cuda.is_available() else contextlib.nullcontext  # torchlint: instrument
    for epoch in range(3):
        model.train()
        for step, (x, y) in enumerate(tqdm(train_loader, desc=f"epoch {epoch}")):
            with tl_nvtx("train_step epoch_nested.py:23-34"):  # torchlint: instrument indent=4
                with tl_nvtx("optimizer_step epoch_nested.py:26-26"):  # torchlint: instrument indent=4
                    optimizer.zero_grad(set_to_none=True)
                with tl_nvtx("forward epoch_nested.py:28-28"):  # torchlint: instrument dedent indent=4
                    logits = model(x)
                with tl_nvtx("loss_compute epoch_nested.py:30-30"):  # torchlint: instrument dedent indent=4
                    loss = criterion(logits, y)
                with tl_nvtx("backward epoch_nested.py:32-32"):  # torchlint: instrument dedent indent=4
                    loss.backward()
                with tl_nvtx("optimizer_step epoch_nested.py:34-34"):  # torchlint: instrument dedent indent=4
                    optimizer.step()
            # torchlint: instrument dedent dedent
        print(f"epoch {epoch} done")


if __name__ == "__main__":
    main()
