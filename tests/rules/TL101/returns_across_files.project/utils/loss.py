# torchlint-test: select=TL101
# Nothing here syncs itself: the copy is in utils.py, one file further.
import torch

from .utils import on_device, to_cpu


def compute_loss(predictions, targets):
    loss = ((predictions - targets) ** 2).mean()
    return loss, to_cpu(torch.stack([loss, loss.detach()]))


def device_loss(predictions, targets):
    loss = ((predictions - targets) ** 2).mean()
    return loss, on_device(torch.stack([loss, loss]))


def _copy(x):
    return to_cpu(x)


def through_local(x):
    # A function of this file that calls the other module's function: two calls deep.
    return _copy(x)


def maybe_copy(x, verbose):
    # Only when the caller asks for it: not a sync of every call.
    if verbose:
        return to_cpu(x)
    return x


def pass_through(x):
    # Copies what the caller passes: a host tensor in, no sync.
    return to_cpu(x)
