# torchlint-test: select=TL102
# A parameter annotated with torch's tensor class is a tensor: a boolean-mask read of it in a method that a
# decoding loop runs on every token syncs, though what the loop passes is itself a parameter the model
# cannot type. Look-alikes: the same read of a parameter annotated `Optional[Tensor]` (it may hold None,
# so the model does not take it for a tensor) or a NumPy array.
from typing import Optional

import numpy as np
import torch


class Rules:
    def apply(self, logits: torch.Tensor, tokens: torch.Tensor, extra: Optional[torch.Tensor], ids: np.ndarray):
        stamps = tokens[tokens.ge(100)]  # error: [TL102]
        maybe = extra[extra > 0]
        host = ids[ids > 5]
        logits[:, :10] -= 1.0
        return stamps, maybe, host


class Decoder:
    def __init__(self, model):
        self.model = model
        self.rules = Rules()

    def run(self, tokens, extra, ids):
        for _ in range(50):
            logits = self.model(tokens)
            self.rules.apply(logits, tokens, extra, ids)
            tokens = torch.cat([tokens, logits[:, -1].argmax(-1)[:, None]], dim=-1)
        return tokens


def main(tokens, extra=None, ids=None):
    return Decoder(torch.nn.Embedding(100, 8).cuda()).run(tokens, extra, ids)
