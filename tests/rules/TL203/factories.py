# torchlint-test: select=TL203
# Worker counts through `int(...)` and `**kwargs` dicts (a conditional literal, or one `update`d from
# another); a loader built by a method of the class and iterated by another method every epoch.
import argparse

import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=2)
opt = parser.parse_args()
use_cuda = torch.cuda.is_available()

loader = DataLoader(dataset, batch_size=8, num_workers=int(opt.workers))  # error: [TL203]
kwargs = {"num_workers": 1, "pin_memory": True} if use_cuda else {}
gpu_loader = DataLoader(dataset, batch_size=8, **kwargs)  # error: [TL203]

for epoch in range(3):
    for x in loader:
        pass
    for x in gpu_loader:
        pass


class Trainer:
    def __init__(self, dataset, test_dataset=None):
        self.train_loader = self._prepare_dataloader(dataset)
        self.test_loader = self._prepare_dataloader(test_dataset) if test_dataset else None

    def _prepare_dataloader(self, dataset):
        return DataLoader(dataset, batch_size=8, num_workers=4)  # error: [TL203]

    def _run_epoch(self, dataloader):
        for x in dataloader:
            pass

    def train(self, epochs):
        for epoch in range(epochs):
            self._run_epoch(self.train_loader)
            if self.test_loader:
                self._run_epoch(self.test_loader)
