# torchlint-test: select=TL402
# Framework training: reported at the constructor unless a precision is set.
import lightning as L


def fit(model, data):
    trainer = L.Trainer(accelerator="gpu", max_epochs=3)  # error: [TL402]
    trainer.fit(model, data)
