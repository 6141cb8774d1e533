# torchlint-test: select=TL302
# Lightning's evaluation hooks run under no_grad already; a CPU-only script is reported all the same
# (autograd's memory is not a GPU matter).
import torch
import lightning as L


class Module(L.LightningModule):
    def validation_step(self, batch, batch_idx):
        x, y = batch
        return self.model(x)


def evaluate(model, batches):
    model.eval()
    for x in batches:  # error: [TL302]
        model(x)
