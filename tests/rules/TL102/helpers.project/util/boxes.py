# torchlint-test: select=TL102
# No device in this file: train.py, which imports it, runs on CUDA. Each helper's sync is reported at
# the call of the step loop, with this line as the related location, and here too, where it is written,
# with that call as the related location (every sync of a helper, not only the first).
import torch


def decode(output, threshold=0.5):
    found = []
    for row in output:
        prob = torch.sigmoid(row)
        best = max(prob)  # error: [TL102]  # related: [TL102]
        if best > threshold:
            found.append(row)
    return found


def keep(output):
    scores = torch.softmax(output, dim=-1)
    return scores[scores > 0.5]  # error: [TL102]  # related: [TL102]


class Decoder:
    def decode(self, output):
        index = output.argmax(dim=-1)
        picked = torch.zeros_like(output).nonzero()  # error: [TL102]  # related: [TL102]
        return index, picked


def assert_valid(loss):
    assert torch.isfinite(loss).all()  # error: [TL102]  # related: [TL102]
    return loss


def clip(value, limit):
    if value > limit:
        return limit
    return value


def first_positive(values):
    for value in values:
        if value > 0:
            return value
    return None


def every_hundred(output, step):
    if step % 100 == 0:
        return torch.isnan(output).nonzero()
    return None



class Sampler(torch.nn.Module):
    def generate(self, idx, top_k=None):
        logits = self(idx)
        if top_k is not None:
            v, _ = torch.topk(logits, top_k)
            logits[logits < v[:, [-1]]] = -float("Inf")
        return logits
