# torchlint-test: select=TL203
# A trainer of the project: `fit` iterates the loader it is given once per epoch, `evaluate` once.
import torch
from tqdm import tqdm


class Trainer:
    def __init__(self, model):
        self.model = model

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x in tqdm(loader):
                self.model(x.cuda()).sum().backward()

    def evaluate(self, loader):
        with torch.no_grad():
            for x in loader:
                self.model(x.cuda())


def run(model, loader, epochs):
    for epoch in range(epochs):
        for step, x in enumerate(loader):
            model(x.cuda()).sum().backward()
