# torchlint-test: select=TL101
# Hugging Face Accelerate puts the model on the GPU: `Accelerator()` is the device evidence.
from accelerate import Accelerator


def train(model, loader, optimizer):
    accelerator = Accelerator()
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        loss = model(**batch).loss
        accelerator.backward(loss)
        optimizer.step()
        total = loss.item()  # error: [TL101]
