# torchlint-test: select=TL401
# A dict config read through a parameter with a config's name (`cfg["vocab_size"]`) that the model's
# `__init__` also hands to a class of the file (`TransformerBlock(cfg)`): the key is read from what the
# callers pass (here through `main(GPT_CONFIG)`), and reported once, where it is written. A key the
# function writes itself is read from that write.
import torch
import torch.nn as nn


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ff = nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"])


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)


class Tagger(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        cfg["n_tags"] = 96
        self.block = TransformerBlock(cfg)
        self.head = nn.Linear(cfg["emb_dim"], cfg["n_tags"])


def main(gpt_config):
    model = GPTModel(gpt_config).to(torch.device("cuda"))
    tagger = Tagger({"emb_dim": 768, "n_tags": 9}).cuda()
    return model, tagger


if __name__ == "__main__":
    GPT_CONFIG = {
        "vocab_size": 50257,  # error: [TL401]
        "emb_dim": 768,
        "n_layers": 12,
    }
    main(GPT_CONFIG)
