# torchlint-test: select=TL102
# Box helpers: the asserts read their parameters, which the index takes for arrays (they are indexed
# with several indices); a caller that passes device tensors syncs.
import torch


def box_cxcywh_to_xyxy(x):
    x_c, y_c, w, h = x.unbind(-1)
    return torch.stack([x_c - 0.5 * w, y_c - 0.5 * h, x_c + 0.5 * w, y_c + 0.5 * h], dim=-1)


def generalized_box_iou(boxes1, boxes2):
    assert (boxes1[:, 2:] >= boxes1[:, :2]).all()  # related: [TL102]
    assert (boxes2[:, 2:] >= boxes2[:, :2]).all()
    lt = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    return lt.sum(-1)


def count_matches(targets, sample):
    # A mask on its second parameter: only a device `targets` makes it sync.
    return len(targets[targets[:, 0] == sample])  # related: [TL102]


def clip_scale(scale, limit):
    # Not an array: a number compared with a number.
    if scale > limit:
        return limit
    return scale
