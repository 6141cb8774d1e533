# The converter is built here and passed to the validation loop of evaluate.py; the second loop is
# called with two converter classes, so its parameter has no one class.
import argparse

import torch

from evaluate import validation, validation_either
from utils import AttnConverter, CTCConverter

parser = argparse.ArgumentParser()
parser.add_argument("--prediction", default="CTC")
opt = parser.parse_args()
model = torch.nn.Linear(8, 8).cuda()
converter = CTCConverter("abc")
for epoch in range(10):
    validation(model, loader, converter)
    validation_either(model, loader, CTCConverter("abc"))
    validation_either(model, loader, AttnConverter("abc"))
