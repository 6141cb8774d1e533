import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class Trainer:
  def __init__(self):
    self.model = nn.Linear(4, 4)
    self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
    self.loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 4)), batch_size=4)

  def fit(self):
    for x, y in self.loader:
      loss = nn.functional.mse_loss(self.model(x), y)
      self.optimizer.zero_grad()
      loss.backward()
      self.optimizer.step()


if __name__ == "__main__":
  Trainer().fit()
