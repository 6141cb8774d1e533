# torchlint-test: select=TL101
# The options are parsed here and handed to the training function of train.py.
import argparse

import torch

import train

parser = argparse.ArgumentParser()
parser.add_argument("-log-interval", type=int, default=1)
parser.add_argument("--epochs", type=int, default=3)
args = parser.parse_args()
model = torch.nn.Linear(8, 2).cuda()
train.train(loader, model, args)
