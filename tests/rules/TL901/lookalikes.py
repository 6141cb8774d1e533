# torchlint-test: select=TL901
# Debugging APIs that are off: a False switch, a flag whose argparse default is off, a guard on such a
# flag, enabled=False, the default sync debug mode, a value the model cannot resolve.
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--detect-anomaly", action="store_true")
parser.add_argument("--profile", type=int, default=0)
args = parser.parse_args()

torch.autograd.set_detect_anomaly(False)
torch.autograd.set_detect_anomaly(args.detect_anomaly)
if args.detect_anomaly:
    torch.autograd.set_detect_anomaly(True)
torch.cuda.set_sync_debug_mode(0)
torch.cuda.set_sync_debug_mode("default")
torch.autograd.set_detect_anomaly(unknown_flag)


def train(model, loader, optimizer):
    with torch.autograd.profiler.profile(enabled=False):
        for x, y in loader:
            loss = model(x).sum()
            loss.backward()
            optimizer.step()
    with torch.autograd.profiler.profile(enabled=bool(args.profile)):
        pass
