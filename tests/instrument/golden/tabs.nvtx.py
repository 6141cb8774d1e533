import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import contextlib  # torchlint: instrument


def train(loader, model, opt):
	tl_nvtx = torch.cuda.nvtx.range if torch.cuda.is_available() else contextlib.nullcontext  # torchlint: instrument
	for x, y in loader:
		with tl_nvtx("train_step tabs.py:9-21"):  # torchlint: instrument indent=tab
			with tl_nvtx("other tabs.py:12-13"):  # torchlint: instrument indent=tab
				if x.shape[0] == 0:
					continue
			with tl_nvtx("loss_compute tabs.py:15-15"):  # torchlint: instrument dedent indent=tab
				loss = nn.functional.mse_loss(model(x), y)
			with tl_nvtx("optimizer_step tabs.py:17-17"):  # torchlint: instrument dedent indent=tab
				opt.zero_grad()
			with tl_nvtx("backward tabs.py:19-19"):  # torchlint: instrument dedent indent=tab
				loss.backward()
			with tl_nvtx("optimizer_step tabs.py:21-21"):  # torchlint: instrument dedent indent=tab
				opt.step()
		# torchlint: instrument dedent dedent


if __name__ == "__main__":
	net = nn.Linear(3, 1)
	data = DataLoader(TensorDataset(torch.randn(24, 3), torch.randn(24, 1)), batch_size=4)
	train(data, net, torch.optim.SGD(net.parameters(), lr=0.1))
