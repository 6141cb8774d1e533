# torchlint-test: select=TL302 unsafe-fixes
import torch

model = torch.nn.Linear(8, 2)


def evaluate(loader):
    model.eval()
    for x, y in loader:  # error: [TL302]
        model(x)
    for x, y in loader:  # error: [TL302]
        model(x)


class Evaluator:
    @staticmethod
    def test(loader):
        for x, y in loader:  # error: [TL302]
            model(x)


model.eval()
for x, y in loader:  # error: [TL302]
    out = model(x)

    print(out)
