# torchlint-test: select=TL102
# The criterion keeps the matcher it is given: calling `self.matcher(...)` runs the matcher's forward,
# whose helper asserts on the boxes it is passed.
from torch import nn

from .matcher import build_matcher, build_plain


class SetCriterion(nn.Module):
    def __init__(self, num_classes, matcher):
        super().__init__()
        self.num_classes = num_classes
        self.matcher = matcher

    def forward(self, outputs, targets):
        outputs_without_aux = {k: v for k, v in outputs.items() if k != "aux_outputs"}
        indices = self.matcher(outputs_without_aux, targets)
        return {"loss": indices.sum()}


class PlainCriterion(nn.Module):
    # The same shape, with a matcher that does not sync.
    def __init__(self, matcher):
        super().__init__()
        self.matcher = matcher

    def forward(self, outputs, targets):
        return {"loss": self.matcher(outputs, targets)}


def build(args):
    matcher = build_matcher(args)
    criterion = SetCriterion(91, matcher=matcher)
    plain = PlainCriterion(build_plain(args))
    return criterion, plain
