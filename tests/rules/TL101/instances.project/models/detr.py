# torchlint-test: select=TL101
import torch
from torch import nn

from .losses import LossBase


class SetCriterion(LossBase):
    def __init__(self, weight):
        super().__init__()
        self.weight = weight

    def forward(self, outputs, targets):
        num_boxes = torch.clamp(torch.as_tensor([4.0], device=outputs.device), min=1).item()  # related: [TL101]
        return (outputs - targets).abs().sum() / num_boxes


def build(args):
    model = nn.Linear(8, 8)
    criterion = SetCriterion(weight=1.0)
    criterion.to(args.device)
    return model, criterion, {"bbox": None}
