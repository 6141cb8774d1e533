import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def train(loader, model, opt):
	for x, y in loader:
		if x.shape[0] == 0:
			continue
		loss = nn.functional.mse_loss(model(x), y)
		opt.zero_grad()
		loss.backward()
		opt.step()


if __name__ == "__main__":
	net = nn.Linear(3, 1)
	data = DataLoader(TensorDataset(torch.randn(24, 3), torch.randn(24, 1)), batch_size=4)
	train(data, net, torch.optim.SGD(net.parameters(), lr=0.1))
