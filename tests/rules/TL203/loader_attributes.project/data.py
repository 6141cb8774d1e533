# torchlint-test: select=TL203
# Loaders kept as attributes of an object that train.py builds: `train` and `test` are iterated in its
# epoch loop, so their workers restart every epoch; `calibration` is iterated once, and `Folds` is
# built again every epoch (each build makes new loaders anyway).
import torch
from torch.utils.data import DataLoader


class Cifar:
    def __init__(self, batch_size, threads):
        data = list(range(1024))
        self.train = torch.utils.data.DataLoader(data, batch_size=batch_size, num_workers=threads)  # error: [TL203]
        self.test = DataLoader(data, batch_size=batch_size, num_workers=threads)  # error: [TL203]
        self.calibration = DataLoader(data, batch_size=batch_size, num_workers=threads)


class Folds:
    def __init__(self, threads):
        self.loader = DataLoader(list(range(64)), num_workers=threads)
