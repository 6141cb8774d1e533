# torchlint-test: select=TL101,TL502
# The training step is a closure passed to `timed`, which calls it on every call: its sync runs every
# step, and the loop is a training loop because the closure runs backward() (so TL502, which reports
# training loops only, reports it). A closure only stored, or called under the helper's parameter, is
# not followed. A model's named_parameters() passed to a helper are device tensors.
import torch

from timing import grad_norms, maybe, register, timed

device = torch.device("cuda")
model = torch.nn.Linear(8, 8).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def local_timer(fn):
    return fn()


def train(loader):
    callbacks = []
    for x, y in loader:  # error: [TL502]

        def train_step():
            loss = (model(x.to(device)) - y.to(device)).pow(2).mean()
            loss.backward()
            optimizer.step()
            return float(loss)  # error: [TL101]

        def report():
            return model.weight.sum().item()

        def sometimes():
            return model.weight.mean().item()

        def local_step():
            return model.bias.sum().item()  # error: [TL101]

        value, seconds = timed(train_step)
        register(callbacks, report)
        maybe(sometimes, False)
        local_timer(local_step)
        norms = grad_norms(model.named_parameters())  # error: [TL101]
