# torchlint-test: select=TL101
# A device option whose choices name the GPU makes a CUDA script.
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--backend", choices=["cpu", "gpu"], default="cpu")
args = parser.parse_args()


def train(model, loader, optimizer):
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        optimizer.step()
        print(loss.item())  # error: [TL101]
