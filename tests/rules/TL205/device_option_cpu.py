# torchlint-test: select=TL205
# A device option that only ever names the CPU: nothing runs on CUDA, and `.to(args.device)` stays on the
# host.
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--device", type=str, default="cpu", help="where to run (this demo has no GPU path)")
args = parser.parse_args()

X_init = torch.zeros(16, 1, dtype=torch.long).to(args.device)
