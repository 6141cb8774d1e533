# torchlint-test: select=TL2
import torch
from torch.utils.data import DataLoader

device = "cuda"
if True:
	loader = DataLoader(ds, num_workers=4)  # error: [TL202]
