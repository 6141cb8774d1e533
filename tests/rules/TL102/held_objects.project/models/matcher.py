# torchlint-test: select=TL102
import torch
from torch import nn

from util.box_ops import box_cxcywh_to_xyxy, generalized_box_iou


class HungarianMatcher(nn.Module):
    def __init__(self, cost_giou=1.0):
        super().__init__()
        self.cost_giou = cost_giou

    @torch.no_grad()
    def forward(self, outputs, targets):
        out_bbox = outputs["pred_boxes"].flatten(0, 1)
        tgt_bbox = torch.cat([v["boxes"] for v in targets])
        return -generalized_box_iou(box_cxcywh_to_xyxy(out_bbox), box_cxcywh_to_xyxy(tgt_bbox))


class PlainMatcher(nn.Module):
    def forward(self, outputs, targets):
        return outputs["pred_boxes"].sum()


def build_matcher(args):
    return HungarianMatcher(cost_giou=args.giou)


def build_plain(args):
    return PlainMatcher()
