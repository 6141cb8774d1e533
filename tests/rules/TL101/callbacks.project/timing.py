# torchlint-test: select=TL101
# A timing helper that runs the closure it is given on every call, and two that do not. Its own
# synchronize() runs under a parameter, so a call of it is not reported (what the caller passes decides).
import time

import torch


def timed(closure, log=True):
    start = time.time()
    result = closure()
    if log:
        torch.cuda.synchronize()
    return result, time.time() - start


def register(callbacks, fn):
    callbacks.append(fn)


def maybe(fn, enabled):
    if enabled:
        return fn()
    return None


def grad_norms(named_parameters):
    # Syncs on what its parameter brings: a model's named_parameters() are device tensors.
    norms = []
    for name, p in named_parameters:
        norms.append(p.grad.norm().item())  # related: [TL101]
    return norms
