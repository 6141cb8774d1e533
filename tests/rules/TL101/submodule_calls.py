# torchlint-test: select=TL101
# A model's submodules and methods run the model: `model.decode(ys, memory)` in a loop that feeds its
# output back is a decoding loop, and its `.item()` syncs on every generated token. Look-alikes: an epoch
# loop that samples with `model.decode(noise)` around a function whose loop takes the loader's batches
# (the epoch loop is not a step loop, and its `.cpu()` runs once per epoch), and loops whose calls on a
# model-named object do not run it: a string option's method (`args.model.startswith`), a tokenizer's
# `decode`, a method with no inputs (`model.reset()`), a question about the model (`model.is_ready(x)`).
import argparse

import torch


class Seq2Seq(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(8, 8)
        self.dec = torch.nn.Linear(8, 8)

    def encode(self, src):
        return self.enc(src)

    def decode(self, ys, memory):
        return self.dec(memory) + ys.float().mean()

    def reset(self):
        pass

    def is_ready(self, step):
        return step > 0


parser = argparse.ArgumentParser()
parser.add_argument("--model", default="seq2seq")
args = parser.parse_args()
model = Seq2Seq().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = torch.utils.data.DataLoader(torch.randn(64, 8), batch_size=8)


def greedy(src):
    memory = model.encode(src)
    ys = torch.zeros(1, 1, dtype=torch.long, device="cuda")
    for _ in range(20):
        out = model.decode(ys, memory)
        next_word = out.argmax(-1)[0].item()  # error: [TL101]
        ys = torch.cat([ys, torch.full((1, 1), next_word, device="cuda")], dim=1)
    return ys


def train():
    for x in loader:
        loss = model.encode(x.cuda()).sum()
        loss.backward()
        optimizer.step()


class Tokenizer:
    def decode(self, ids):
        return str(ids)


tokenizer = Tokenizer()
for epoch in range(10):
    train()
    sample = model.decode(torch.zeros(1, device="cuda"), torch.randn(1, 8, device="cuda"))
    print(sample.cpu())

for name in ["a", "b"]:
    if args.model.startswith(name):
        print(torch.ones(1, device="cuda").item())
for ids in [[1, 2], [3]]:
    print(tokenizer.decode(ids), torch.ones(1, device="cuda").item())
for step in range(3):
    model.reset()
    print(model.is_ready(step), torch.ones(1, device="cuda").item())
print(greedy(torch.randn(1, 8, device="cuda")))
