# torchlint-test: select=TL101
# A decoding loop as inference code writes it, with no model call in sight: `self.inference.logits(...)`
# is a method of another object that returns what the model's decoder gives, so the loop that feeds the
# tokens back is a loop of generated tokens. `self.decoder` holds one of two classes (an option picks it),
# and `self.filters` a list of objects of several classes: each of their methods runs on every token.
# Look-alikes: a method of the same classes called once after the loop, a method that no loop calls, a
# filter class that is never put in the list.
import torch
from torch import Tensor


class Inference:
    def __init__(self, model):
        self.model = model

    def logits(self, tokens, features):
        return self.model.decoder(tokens, features)


class Greedy:
    def update(self, tokens: Tensor, logits: Tensor):
        next_tokens = logits.argmax(dim=-1)
        return torch.cat([tokens, next_tokens[:, None]], dim=-1)

    def finalize(self, tokens: Tensor):
        return tokens.tolist()


class Beam:
    def update(self, tokens: Tensor, logits: Tensor):
        prefix = tokens[0].tolist()  # error: [TL101]
        best = logits.topk(2).indices
        return torch.cat([tokens, best[:, :1]], dim=-1), prefix


class Penalty:
    def apply(self, logits: Tensor, tokens: Tensor):
        seen = tokens[0].tolist()  # error: [TL101]
        logits[:, seen] -= 1.0


class Suppress:
    def apply(self, logits: Tensor, tokens: Tensor):
        logits[:, 0] = -1e9


class Unused:
    def apply(self, logits: Tensor, tokens: Tensor):
        print(tokens.sum().item())


class Task:
    def __init__(self, model, beam_size=None):
        self.inference = Inference(model)
        if beam_size is not None:
            self.decoder = Beam()
        else:
            self.decoder = Greedy()
        self.filters = [Suppress()]
        self.filters.append(Penalty())

    def loop(self, features: Tensor, tokens: Tensor):
        for i in range(100):
            logits = self.inference.logits(tokens, features)
            logits = logits[:, -1]
            for f in self.filters:
                f.apply(logits, tokens)
            tokens = self.decoder.update(tokens, logits)
        return self.decoder.finalize(tokens)

    def report(self, tokens: Tensor):
        return Unused().apply(tokens, tokens)


class Whisper(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = torch.nn.Linear(8, 8)


task = Task(Whisper().cuda(), beam_size=5)
print(task.loop(torch.randn(1, 8, device="cuda"), torch.zeros(1, 1, dtype=torch.long, device="cuda")))
