import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import contextlib  # torchlint: instrument


class Trainer:
  def __init__(self):
    self.model = nn.Linear(4, 4)
    self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
    self.loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 4)), batch_size=4)

  def fit(self):
    tl_nvtx = torch.cuda.nvtx.range if torch.cuda.is_available() else contextlib.nullcontext  # torchlint: instrument
    for x, y in self.loader:
      with tl_nvtx("train_step two_space.py:15-24"):  # torchlint: instrument indent=2
        with tl_nvtx("loss_compute two_space.py:18-18"):  # torchlint: instrument indent=2
          loss = nn.functional.mse_loss(self.model(x), y)
        with tl_nvtx("optimizer_step two_space.py:20-20"):  # torchlint: instrument dedent indent=2
          self.optimizer.zero_grad()
        with tl_nvtx("backward two_space.py:22-22"):  # torchlint: instrument dedent indent=2
          loss.backward()
        with tl_nvtx("optimizer_step two_space.py:24-24"):  # torchlint: instrument dedent indent=2
          self.optimizer.step()
      # torchlint: instrument dedent dedent


if __name__ == "__main__":
  Trainer().fit()
