# torchlint-test: select=TL502 target-torch=2.4
# torch.compile behind a flag: the script can already compile, so nothing is reported.
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--compile", action="store_true")
args = parser.parse_args()


def train(model, loader, optimizer):
    model = model.cuda()
    if args.compile:
        model = torch.compile(model)
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
