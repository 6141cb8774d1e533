# torchlint-test: select=TL401
# Writes to a config after it is made: `config.vocab_size = 50257` on an object handed to a class of the
# file (minGPT), and `config_args['vocab_size'] = 50257` on a dict splatted into the config's
# constructor (nanoGPT). Each is reported once, where it is written, not at the two layers that use it.
from dataclasses import dataclass

import torch.nn as nn


@dataclass
class GPTConfig:
    vocab_size: int = 50304
    n_embd: int = 768


class GPT(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)

    @classmethod
    def from_pretrained(cls, model_type):
        config_args = {
            "gpt2": dict(n_layer=12, n_head=12, n_embd=768),
            "gpt2-xl": dict(n_layer=48, n_head=25, n_embd=1600),
        }[model_type]
        config_args["vocab_size"] = 50257  # error: [TL401]
        config = GPTConfig(**config_args)
        return GPT(config)


def get_default_config():
    return object()


def from_checkpoint():
    config = get_default_config()
    config.n_embd = 1020  # error: [TL401]
    config.vocab_size = 32001  # error: [TL401]
    return GPT(config)


def overwritten():
    # Only the last write reaches the model: 50001 is overwritten before anything sees it.
    cfg = GPTConfig()
    cfg.vocab_size = 50001
    cfg.vocab_size = 50432
    return GPT(cfg)


def conditional(small):
    # A write under a condition does not overwrite the one before it: both reach the model.
    cfg = GPTConfig(vocab_size=50260)  # error: [TL401]
    if small:
        cfg.vocab_size = 256
    return GPT(cfg)


# A write that a call in between is handed (as an argument or as the receiver) reaches what that call
# does, so a later write does not overwrite it; a call the config is not handed does not count.
def handed_on():
    cfg = GPTConfig()
    cfg.vocab_size = 50001  # error: [TL401]
    draft = GPT(cfg)
    cfg.vocab_size = 50432
    return draft, GPT(cfg)


def handed_as_receiver():
    cfg = GPTConfig()
    cfg.vocab_size = 50003  # error: [TL401]
    cfg.validate()
    cfg.vocab_size = 50432
    return GPT(cfg)


def not_handed():
    cfg = GPTConfig()
    cfg.vocab_size = 50005
    print("building")
    cfg.vocab_size = 50432
    return GPT(cfg)
