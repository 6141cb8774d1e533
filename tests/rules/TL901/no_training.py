# torchlint-test: select=TL901
# A gradient test, not training code: no step loop, no training hook, no framework.
import torch


def test_gradients(fn, x):
    torch.autograd.set_detect_anomaly(True)
    assert torch.autograd.gradcheck(fn, (x,))
