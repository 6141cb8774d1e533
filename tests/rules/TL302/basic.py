# torchlint-test: select=TL302
# Evaluation and generation loops with autograd on, and the look-alikes that turn it off.
import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(8, 2).cuda()
loader = DataLoader(range(8), batch_size=2)


def evaluate(loader):
    correct = 0
    for x, y in loader:  # error: [TL302]
        correct += (model(x.cuda()).argmax(1) == y.cuda()).sum()
    return correct


def run(loader):
    model.eval()
    total = 0
    for x, _ in loader:  # error: [TL302]
        total += model(x.cuda()).sum()
    return total


def generate(idx, steps):
    for _ in range(steps):  # error: [TL302]
        logits = model(idx)
        idx = torch.cat([idx, logits.argmax(-1, keepdim=True)], dim=1)
    return idx


@torch.no_grad()
def validate(loader):
    for x, y in loader:
        model(x.cuda())


@torch.inference_mode()
def predict(loader):
    return [model(x.cuda()) for x in loader]


def test(loader):
    with torch.no_grad():
        for x, y in loader:
            model(x.cuda())


def infer(loader):
    with torch.set_grad_enabled(False):
        for x, y in loader:
            model(x.cuda())


def evaluate_called_under_no_grad(loader):
    for x, y in loader:
        model(x.cuda())


def collect(loader):
    # Not an evaluation function, no model.eval(): a loop over a loader that only calls the model
    # (feature extraction that may need gradients) is not reported.
    for x, y in loader:
        model(x.cuda())


def train(loader, optimizer):
    model.train()
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()


with torch.no_grad():
    evaluate_called_under_no_grad(loader)


def evaluate_after(loader):
    # Autograd is turned off only after the loop: reported.
    for x, y in loader:  # error: [TL302]
        model(x.cuda())
    torch.set_grad_enabled(False)
