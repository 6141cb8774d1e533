# torchlint-test: select=TL101
import torch


def to_cpu(tensor):
    return tensor.detach().cpu()  # related: [TL101]


def on_device(tensor):
    return tensor.detach()


def clip_gradients(model, clip):
    # Every parameter has a gradient after a backward pass: the guard does not depend on the call.
    norms = []
    for p in model.parameters():
        if p.grad is not None:
            norms.append(p.grad.norm(2).item())  # related: [TL101]
            p.grad.mul_(clip)
    return norms


def norms_when(model, verbose):
    # Only when the caller asks for it.
    norms = []
    for p in model.parameters():
        if verbose:
            norms.append(p.grad.norm(2).item())
    return norms
