# torchlint-test: select=TL901
import torch

import diagnostics

DEBUG = False
if DEBUG:
    diagnostics.enable_anomaly_detection()
diagnostics.always_on()


def check(verbose=False):
    if verbose:
        diagnostics.when_asked()


def main(debug=False):
    if debug:
        diagnostics.enable_anomaly_detection()
    model = torch.nn.Linear(8, 2).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


main()
check(verbose=True)
