# torchlint-test: select=TL401
# Dataclass fields: the default is reported where it is written, once for every layer that reads it
# through a config parameter; so is a keyword or positional argument of the config's constructor.
from dataclasses import dataclass, field
from typing import NamedTuple

import torch.nn as nn


@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50257  # error: [TL401]
    n_embd: int = 768
    n_head: int = 12


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.block_size, config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)


# Read through an annotated parameter with any name, and through `self.params`.
@dataclass
class ModelArgs:
    dim: int = 4096
    hidden: int = field(default=11006)  # error: [TL401]
    max_seq_len: int = field(default_factory=lambda: 2049)


class FeedForward(nn.Module):
    def __init__(self, params: ModelArgs):
        super().__init__()
        self.params = params
        self.w1 = nn.Linear(params.dim, params.hidden)
        self.w2 = nn.Linear(self.params.hidden, self.params.dim)


# Keyword and positional arguments of a config's constructor, and the class attribute itself.
class EncoderSpec(NamedTuple):
    width: int
    depth: int


class Hyper:
    """Constants of the model."""
    out_width = 1001  # error: [TL401]


spec = EncoderSpec(522, 6)  # error: [TL401]
small = GPTConfig(n_embd=512)
big = GPTConfig(vocab_size=32001)  # error: [TL401]


class Encoder(nn.Module):
    def __init__(self, spec_cfg):
        super().__init__()
        self.proj = nn.Linear(spec_cfg.width, 512)
        self.out = nn.Linear(512, Hyper.out_width)
