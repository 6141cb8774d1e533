# torchlint-test: select=TL901
# No loop here, but train.py of the same project trains: anomaly mode left on slows its steps.
import torch


def setup():
    torch.autograd.set_detect_anomaly(True)  # error: [TL901]
