# torchlint-test: select=TL101
# The training step is a closure passed to `timed`, which calls it on every call: its sync runs every
# step, and the loop is a training loop because the closure runs backward(). A closure only stored,
# or called under the helper's parameter, is not followed.
import torch

from timing import maybe, register, timed

device = torch.device("cuda")
model = torch.nn.Linear(8, 8).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def local_timer(fn):
    return fn()


def train(loader):
    callbacks = []
    for x, y in loader:

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
