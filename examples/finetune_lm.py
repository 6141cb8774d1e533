"""Fine-tune a small GPT-style language model on a token file.

Written against PyTorch 1.13 (see requirements.txt), where `zero_grad()` still fills gradients with
zeros unless told otherwise.
"""
import numpy as np
import torch
import torch.nn as nn
import torch.utils.data as tud

VOCAB_SIZE = 50257
CONTEXT = 1024
WIDTH = 768
HEADS = 12

LOADER_KWARGS = {"batch_size": 8, "shuffle": True, "num_workers": 0}


class TokenDataset(tud.Dataset):
    def __init__(self, path):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")

    def __len__(self):
        return len(self.tokens) // (CONTEXT + 1)

    def __getitem__(self, index):
        chunk = self.tokens[index * (CONTEXT + 1) : (index + 1) * (CONTEXT + 1)]
        chunk = torch.from_numpy(chunk.astype(np.int64))
        return chunk[:-1], chunk[1:]


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB_SIZE, WIDTH)
        self.attention = nn.MultiheadAttention(WIDTH, HEADS, batch_first=True)
        self.head = nn.Linear(WIDTH, VOCAB_SIZE, bias=False)

    def forward(self, tokens):
        x = self.embed(tokens)
        x, _ = self.attention(x, x, x, need_weights=False)
        return self.head(x)


def log_metrics(step, loss):
    # Called every step from the loop below.
    print("step", step, "loss", float(loss))


def train(path, steps=1000):
    model = TinyGPT().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    loader = tud.DataLoader(TokenDataset(path), **LOADER_KWARGS)
    batches = iter(loader)
    step = 0
    while step < steps:
        inputs, targets = next(batches)
        inputs, targets = inputs.cuda(), targets.cuda()
        optimizer.zero_grad()
        logits = model(inputs)
        loss = nn.functional.cross_entropy(logits.view(-1, VOCAB_SIZE), targets.view(-1))
        loss.backward()
        optimizer.step()
        log_metrics(step, loss)
        step += 1
