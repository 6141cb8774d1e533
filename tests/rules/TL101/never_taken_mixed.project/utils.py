# torchlint-test: select=TL101
# Look-alike: this file calls evaluate() without a criterion, but train.py passes one, so the branch runs
# there on every batch: the calls of other files count with the file's own.
import torch

model = torch.nn.Linear(8, 2).cuda()


@torch.no_grad()
def evaluate(net, data_loader, criterion=None):
    for samples, targets in data_loader:
        outputs = net(samples.cuda())
        if criterion is not None:
            print(criterion(outputs, targets.cuda()).item())  # error: [TL101]


def smoke_test(loader):
    evaluate(model, loader)
