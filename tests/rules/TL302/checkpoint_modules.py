# torchlint-test: select=TL302
# Modules loaded from a checkpoint: what they are shows in the file switching them to evaluation mode.
import torch
from torch.utils.data import DataLoader

checkpoint = torch.load("checkpoint.pth.tar")
encoder = checkpoint["encoder"].cuda()
encoder.eval()
decoder = checkpoint["decoder"]
decoder = decoder.cuda()
decoder.eval()
scorer = checkpoint["scorer"]
loader = DataLoader(range(8), batch_size=1)


def evaluate(loader):
    hypotheses = []
    for image, caps in loader:  # error: [TL302]
        encoded = encoder(image.cuda())
        hypotheses.append(decoder(encoded).argmax(-1))
    return hypotheses


def score_only(loader):
    # `scorer` is never put in evaluation mode: nothing says it is a module.
    total = 0
    for image, caps in loader:
        total += scorer(image.cuda())
    return total


@torch.no_grad()
def evaluate_quietly(loader):
    return [decoder(encoder(image.cuda())) for image, _ in loader]


def validate(loader):
    with torch.inference_mode():
        for image, caps in loader:
            decoder(encoder(image.cuda()))
