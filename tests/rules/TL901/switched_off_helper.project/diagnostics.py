# torchlint-test: select=TL901
# Helpers that turn anomaly detection on. The first is called only under switches that are off (in
# train.py: a constant, and a parameter whose every call leaves it at its false default): it never runs.
# The second is called unconditionally, the third under a parameter a call sets to true, and the fourth
# by nothing the project shows (another program may): those are reported.
import torch


def enable_anomaly_detection():
    torch.autograd.set_detect_anomaly(True)


def always_on():
    torch.autograd.set_detect_anomaly(True)  # error: [TL901]


def when_asked():
    torch.autograd.set_detect_anomaly(True)  # error: [TL901]


def never_called():
    torch.autograd.set_detect_anomaly(True)  # error: [TL901]
