# torchlint-test: select=TL502,TL402,TL403
# LightningCLI builds the Trainer (accelerator "auto": the GPU when there is one): framework training,
# and TL502 reports it. Its precision is the `--trainer.precision` flag, so TL402/TL403 stay silent.
from lightning.pytorch.cli import LightningCLI


def cli_main():
    cli = LightningCLI(Model, DataModule, run=False)  # error: [TL502]
    cli.trainer.fit(cli.model, datamodule=cli.datamodule)
