# torchlint-test: select=TL401
# `argparse.Namespace`, dict configs and argparse defaults, read as `args.x` or `cfg["x"]` in the
# model's `__init__`: each value is reported where it is written.
import argparse
from types import SimpleNamespace

import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.embed = nn.Embedding(args.vocab, args.dim)
        self.rnn = nn.LSTM(args.dim, args.hidden)


class Head(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.fc = nn.Linear(cfg["width"], cfg["classes"])


defaults = argparse.Namespace(vocab=30001, dim=512)  # error: [TL401]
parser = argparse.ArgumentParser()
parser.add_argument("--hidden", type=int, default=300)  # error: [TL401]
opts = SimpleNamespace(dim=1000)
tagger = Tagger(defaults)

# 1001 is overwritten before the dict reaches the model: only 650 is reported.
head_cfg = {"width": 1001, "classes": 10}
head_cfg["width"] = 650  # error: [TL401]
head = Head(head_cfg)
