# torchlint-test: select=TL101
# Lightning calls training_step and validation_step once per batch: no loop is in sight.
import lightning as L
import torch


class LitModel(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss.item())  # error: [TL101]
        if batch_idx % 50 == 0:
            print(loss.item())
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        acc = (self.net(x).argmax(1) == y).float().mean()
        self.log("val_acc", acc)
        print(acc.item())  # error: [TL101]

    def on_train_epoch_end(self):
        # Once per epoch.
        print(self.net.weight.sum().item())

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


class NotLightning:
    # The look-alike: the same method name on a class no framework calls.
    def training_step(self, batch, batch_idx):
        return batch.sum().item()


trainer = L.Trainer(max_epochs=1)
trainer.fit(LitModel())
