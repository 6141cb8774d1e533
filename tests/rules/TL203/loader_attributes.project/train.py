# torchlint-test: select=TL203
# The object of data.py whose loaders the epoch loop iterates (`dataset.train`, `enumerate(dataset.test)`).
import torch

from data import Cifar, Folds

model = torch.nn.Linear(8, 8).cuda()
dataset = Cifar(64, 4)
for x in dataset.calibration:
    model(x.cuda())
for epoch in range(10):
    for x in dataset.train:
        model(x.cuda()).sum().backward()
    with torch.no_grad():
        for i, x in enumerate(dataset.test):
            model(x.cuda())
    folds = Folds(2)
    for x in folds.loader:
        model(x.cuda()).sum().backward()
