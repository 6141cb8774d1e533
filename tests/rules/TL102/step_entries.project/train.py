# torchlint-test: select=TL102
# The step loops are here; the loss and the detector, which sync without a sync call, are in
# losses.py and detector.py. Each sync of those helpers is reported where it is written, with the call
# of this file as the related location, and the calls are reported here as before.
import torch

from losses import BoxLoss, epoch_summary, sampled_check

device = torch.device("cuda")


def train(model, loader, criterion, optimizer):
    for step, (x, y) in enumerate(loader):
        out = model(x.to(device))
        loss = criterion(out, y.to(device))  # error: [TL102]  # related: [TL102]
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            sampled_check(out)


def main(loader):
    model = torch.nn.Linear(8, 8).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = BoxLoss()
    for epoch in range(10):
        train(model, loader, criterion, optimizer)
        epoch_summary(model.weight)


def evaluate(loader, path):
    checkpoint = torch.load(path)
    model = checkpoint["model"]
    model = model.to(device)
    helper = checkpoint["helper"]
    with torch.no_grad():
        for x, y in loader:
            out = model(x.to(device))
            boxes = model.detect_boxes(out)  # error: [TL102]  # related: [TL102]
            texts = model.decode(out)
            again = helper.rescore(out)
