# torchlint-test: select=TL101
# An inherited method of another module, and a class re-exported by the package's __init__.
import torch

from . import BaseTrainer
from .helpers import sync_all


class Trainer(BaseTrainer):
    def fit(self, model, loader, optimizer):
        for x, y in loader:
            loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
            loss.backward()
            optimizer.step()
            self.log_step(loss)  # error: [TL101]
            self.quiet(loss)
            sync_all()  # error: [TL101]
