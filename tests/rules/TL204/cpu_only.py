# torchlint-test: select=TL204
# A script with no GPU: a pinned loader's batches moved to "cpu" are not copied to a device.
import torch
from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=8, pin_memory=True)
for x, y in loader:
    x = x.to("cpu")
    y = y.to(torch.device("cpu"))
