# torchlint-test: select=TL102
# A byte tensor (`dtype=torch.uint8`) used as an index is still a mask in PyTorch, and so is its
# complement `1 - m`. A name rebound as the mask grows (`suppress = torch.max(suppress, iou > t)`, the
# NMS of older detection code) is a mask when every assignment of it in the function makes one.
import torch

device = torch.device("cuda")
model = torch.nn.Linear(8, 8).to(device)


def nms(raw, overlap, threshold):
    scores = torch.sigmoid(raw)
    suppress = torch.zeros(scores.size(0), dtype=torch.uint8).to(device)
    for box in range(scores.size(0)):
        suppress = torch.max(suppress, overlap[box] > threshold)
        suppress[box] = 0
    kept = scores[1 - suppress]  # error: [TL102]
    dropped = scores[suppress]  # error: [TL102]
    return kept, dropped


def lookalikes(raw, counts, n):
    scores = torch.sigmoid(raw)
    # Integer indices, not masks.
    order = torch.zeros(n, dtype=torch.long).to(device)
    picked = scores[order]
    shifted = scores[1 - order.long()]
    # Rebound to something that is not a mask.
    mixed = torch.zeros(n, dtype=torch.uint8).to(device)
    mixed = torch.max(mixed, counts)
    also = scores[mixed]
    # A byte tensor that stays on the host, indexing a host tensor.
    host = torch.zeros(n, dtype=torch.uint8)
    table = torch.ones(n)
    rows = table[host]
    return picked, shifted, also, rows


def train(loader):
    for x, y in loader:
        out = model(x.to(device))
        kept, dropped = nms(out, out, 0.5)
        rest = lookalikes(out, y.to(device), 4)
        out.sum().backward()
