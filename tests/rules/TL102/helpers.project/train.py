# torchlint-test: select=TL102
# The device is chosen here; the post-processing helpers, which sync without a sync call, are in
# util/boxes.py, and the validation loop calls them on every batch.
import torch

from util import boxes
from util.boxes import Decoder, Sampler, clip, decode, first_positive
from util.plain import threshold

device = torch.device("cuda")
model = torch.nn.Linear(8, 8).to(device)
optimizer = torch.optim.AdamW(model.parameters())
decoder = Decoder()
sampler = Sampler()


def validate(loader):
    model.eval()
    with torch.no_grad():
        for step, (x, y) in enumerate(loader):
            out = model(x.to(device))
            found = decode(out)  # error: [TL102]  # related: [TL102]
            kept = boxes.keep(out)  # error: [TL102]  # related: [TL102]
            texts = decoder.decode(out)  # error: [TL102]  # related: [TL102]
            limit = clip(step, 10)
            first = first_positive([1.0, 2.0])
            rare = boxes.every_hundred(out, step)
            filtered = sampler.generate(x.to(device))
            capped = threshold(out, 1.0)


for epoch in range(3):
    for x, y in train_loader:
        loss = (model(x.to(device)) - y.to(device)).pow(2).mean()
        loss.backward()
        optimizer.step()
        checked = boxes.assert_valid(loss)  # error: [TL102]  # related: [TL102]
    validate(val_loader)
found = decode(model(torch.zeros(8).to(device)))
