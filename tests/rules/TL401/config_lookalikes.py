# torchlint-test: select=TL401
# Look-alikes TL401 must not report: aligned config values, a field overwritten with a value the model
# cannot read, another object's attribute of the same name, a dict no config is built from, values
# that do not reach a layer, and parameters of functions the file never calls.
from dataclasses import dataclass

import torch.nn as nn


@dataclass
class LMConfig:
    vocab_size: int = 50304
    n_embd: int = 768


class LM(nn.Module):
    def __init__(self, config, tokenizer):
        super().__init__()
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.tokenizer = tokenizer


def with_tokenizer(tokenizer):
    # Overwritten with a value from the tokenizer: the 50257 before it never reaches the model.
    config = LMConfig(vocab_size=50257)
    config.vocab_size = len(tokenizer)
    # Not a config: another object's attribute of the same name is not what `config.vocab_size` reads.
    tokenizer.vocab_size = 50257
    return LM(config, tokenizer)


# A dict that no config is built from, and a keyword no layer reads.
tokenizer_kwargs = {"vocab_size": 50257}
tokenizer_kwargs["n_embd"] = 1001
stats = LMConfig(n_embd=768)
stats.n_layer = 1001


# Parameters with no call site in the file stay unknown, defaults included.
class Free(nn.Module):
    def __init__(self, width, depth=1001):
        super().__init__()
        self.fc = nn.Linear(width, depth)


# Rebound names have no single value, whatever the call sites say.
def rebound(n):
    n = n + 1
    return nn.Linear(n, n)


layer = rebound(1001)
