# torchlint-test: select=TL302
# Evaluation loops with autograd off, in every way the rule knows, and loops that are not evaluation.
import torch
from torch import no_grad

model = torch.nn.Linear(8, 2).cuda()


@no_grad()
def evaluate(loader):
    for x, y in loader:
        model(x.cuda())


class Runner:
    @torch.no_grad
    def validate(self, loader):
        for x, y in loader:
            model(x.cuda())

    def test(self, loader):
        with torch.inference_mode(), open("log.txt") as log:
            for x, y in loader:
                log.write(str(model(x.cuda())))


def predict_all(loader):
    # The helper's only caller turns autograd off.
    out = []
    for x, _ in loader:
        out.append(model(x.cuda()))
    return out


def run(loader):
    with torch.no_grad():
        return predict_all(loader)


def evaluate_metrics(loader, metric):
    # Iterates a loader but never calls the model: metrics over precomputed outputs.
    for preds, target in loader:
        metric.update(preds, target)


def validate_and_train(loader, optimizer):
    # A validate-named function that trains is a training loop.
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()


def test_export(model, inputs_list):
    model.eval()
    for inputs in inputs_list:
        # The model runs under no_grad inside the loop.
        with torch.no_grad():
            outputs = model(*inputs)
        print(outputs)


def validate_grad_off(loader):
    torch.set_grad_enabled(False)
    for x, y in loader:
        model(x.cuda())
