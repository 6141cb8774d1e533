# torchlint-test: select=TL501 target-torch=2.3
# The optimizer is chosen by an option (`if args.optimizer == "lars":`): the branch the argparse default
# takes decides its class. Here the default is "lars", so LARS's per-tensor `step` runs on every
# training step. The look-alikes choose by options whose default takes the AdamW branch, or that have
# no default.
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--optimizer", default="lars", choices=["lars", "adamw"])
parser.add_argument("--fallback", default="adamw", choices=["lars", "adamw"])
parser.add_argument("--choice", choices=["lars", "adamw"])
args = parser.parse_args()


class LARS(torch.optim.Optimizer):
    @torch.no_grad()
    def step(self):
        for g in self.param_groups:
            for p in g["params"]:  # error: [TL501]
                p.add_(p.grad, alpha=-g["lr"])


class LAMB(torch.optim.Optimizer):
    # Chosen only where the defaults take the other branch, or no default says which.
    @torch.no_grad()
    def step(self):
        for g in self.param_groups:
            for p in g["params"]:
                p.add_(p.grad, alpha=-g["lr"])


def train(model, loader):
    if args.optimizer == "lars":
        optimizer = LARS(model.parameters(), {"lr": 0.1})
    elif args.optimizer == "adamw":
        optimizer = torch.optim.AdamW(model.parameters())
    for x in loader:
        model(x.cuda()).sum().backward()
        optimizer.step()  # related: [TL501]


def train_fallback(model, loader):
    if args.fallback == "lars":
        optimizer = LAMB(model.parameters(), {"lr": 0.1})
    else:
        optimizer = torch.optim.AdamW(model.parameters())
    for x in loader:
        model(x.cuda()).sum().backward()
        optimizer.step()


def train_not_default(model, loader):
    if args.optimizer != "lars":
        optimizer = LAMB(model.parameters(), {"lr": 0.1})
    elif args.optimizer == "lars":
        optimizer = torch.optim.AdamW(model.parameters())
    for x in loader:
        model(x.cuda()).sum().backward()
        optimizer.step()


def train_chosen(model, loader):
    if args.choice == "lars":
        optimizer = LAMB(model.parameters(), {"lr": 0.1})
    else:
        optimizer = torch.optim.AdamW(model.parameters())
    for x in loader:
        model(x.cuda()).sum().backward()
        optimizer.step()
