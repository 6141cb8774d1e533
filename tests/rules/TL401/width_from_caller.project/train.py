# torchlint-test: select=TL401
# The script sets the widths (an argparse default, a literal) and builds the model of models/tcn.py, whose
# layers take them as constructor parameters: reported at those layers, in the other file, with the
# project index. Widths that are multiples of 8, or under 64, and a runtime vocabulary, stay silent.
import argparse
import sys

import torch

sys.path.append("../../")
from models.tcn import TCN, Head

parser = argparse.ArgumentParser()
parser.add_argument("--emsize", type=int, default=100)
parser.add_argument("--nhid", type=int, default=256)
args = parser.parse_args()
n_characters = len(open("corpus.txt").read())

model = TCN(args.emsize, n_characters, args.nhid).cuda()
head = Head(48, 512).cuda()
