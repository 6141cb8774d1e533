# torchlint-test: select=TL402
import lightning as L


def fit(model, data):
    trainer = L.Trainer(accelerator="gpu", precision="bf16-mixed")
    trainer.fit(model, data)
