# torchlint-test: select=TL102
import torch


@torch.no_grad()
def validation(model, loader, converter):
    for x, y in loader:
        preds = model(x.cuda())
        _, preds_index = preds.max(1)
        texts = converter.decode(preds_index, 4)  # error: [TL102]


@torch.no_grad()
def validation_either(model, loader, converter):
    for x, y in loader:
        preds = model(x.cuda())
        _, preds_index = preds.max(1)
        texts = converter.decode(preds_index, 4)
