# torchlint-test: select=TL101
# Look-alike: the log interval defaults to 10 here, and the second caller passes no parsed options.
import argparse

import torch

from train import train

parser = argparse.ArgumentParser()
parser.add_argument("--log-interval", type=int, default=10)
parser.add_argument("--save-interval", type=int, default=1)
args = parser.parse_args()
model = torch.nn.Linear(8, 2).cuda()
train(loader, model, args)
