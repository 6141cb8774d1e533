# torchlint-test: select=TL205
# A `--device` option that defaults to the CPU but offers CUDA (in its help or its choices) is chosen per
# run: a move to it is a move to the GPU when the run asks for one (makemore's shape).
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--device", type=str, default="cpu", help="device to use for compute, examples: cpu|cuda|cuda:2|mps")
parser.add_argument("--eval-device", type=str, default="cpu", choices=["cpu", "cuda"])
args = parser.parse_args()

X_init = torch.zeros(16, 1, dtype=torch.long, device=args.device)  # error: [TL205]
probe = torch.ones(4, device=args.eval_device)  # error: [TL205]
