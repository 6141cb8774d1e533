# torchlint-test: select=TL203
# The options are parsed here, and the worker count is scaled by the number of GPUs at run time: data.py
# reads at least 4 through its `opt` parameter, and `--zero` may end at 0.
import argparse

import torch

import data

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=4)
parser.add_argument("--zero", type=int, default=0)
opt = parser.parse_args()
opt.num_gpu = torch.cuda.device_count()
if opt.num_gpu > 1:
    opt.workers = opt.workers * opt.num_gpu
    opt.zero = opt.zero * opt.num_gpu
data.train(opt)
