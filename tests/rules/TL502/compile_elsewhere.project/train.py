# torchlint-test: select=TL502 target-torch=2.4
# The model is compiled in build.py, a file this one imports: nothing is reported.
from build import build


def train(net, loader, optimizer):
    model = build(net)
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
