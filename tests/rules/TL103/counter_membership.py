# torchlint-test: select=TL103
# A branch taken on the iterations a list names (`iteration in testing_iterations`, with the step
# counter passed to a reporting helper) runs a few times, not every step; `not in`, and a membership test
# of something that is not the counter, run every step.
import torch
import torch.nn as nn

model = nn.Linear(32, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def report(iteration, loss, testing_iterations, mode):
    if iteration in testing_iterations:
        torch.cuda.empty_cache()
        print(loss.item())
    if iteration not in testing_iterations:
        torch.cuda.empty_cache()  # error: [TL103]
    if mode in ("train", "eval"):
        torch.cuda.empty_cache()  # error: [TL103]


def train(loader, testing_iterations, opt):
    for iteration in range(1, opt.iterations + 1):
        x, y = next(loader)
        loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        report(iteration, loss, testing_iterations, "train")


def finetune(loader):
    for step, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        if step in [10, 20]:
            torch.cuda.empty_cache()
