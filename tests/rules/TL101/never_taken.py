# torchlint-test: select=TL101
# A branch on a parameter that every call of its function leaves at a default that makes it false never
# runs: `if debug:` with `debug=False`, `if criterion is not None:` with `criterion=None`. Look-alikes that
# are reported: a function one of whose calls passes the flag, one whose call passes a run's option
# (`use_amp=args.use_amp`: false by default, true when the run asks), and a default that makes it true.
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--use-amp", action="store_true")
args = parser.parse_args()
model = torch.nn.Linear(8, 2).cuda()


def evaluate(loader, criterion=None, debug=False):
    for x, y in loader:
        out = model(x.cuda())
        if debug:
            print(out.sum().item())
        if criterion is not None:
            loss = criterion(out, y.cuda())
            print(loss.item())


def evaluate_flagged(loader, debug=False):
    for x, y in loader:
        out = model(x.cuda())
        if debug:
            print(out.sum().item())  # error: [TL101]


def evaluate_amp(loader, use_amp=False):
    for x, y in loader:
        out = model(x.cuda())
        if use_amp:
            print(out.sum().item())  # error: [TL101]


def evaluate_verbose(loader, verbose=True, criterion=None):
    for x, y in loader:
        out = model(x.cuda())
        if verbose:
            print(out.sum().item())  # error: [TL101]
        if criterion is None:
            print(out.mean().item())  # error: [TL101]


evaluate(val_loader)
evaluate(test_loader)
evaluate_flagged(val_loader)
evaluate_flagged(test_loader, debug=True)
evaluate_amp(val_loader, use_amp=args.use_amp)
evaluate_verbose(val_loader)
