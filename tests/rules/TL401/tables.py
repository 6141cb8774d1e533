# torchlint-test: select=TL401
# Tables of configurations: every row of a dict of tuples counts (the file's own calls pick one row,
# callers elsewhere pick the others), and each unaligned number is reported in its row, or, when the
# layer halves it, as the number it makes.
import torch.nn as nn


class Down(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        mid = out_channels // 2
        self.conv1 = nn.Conv2d(in_channels, mid, kernel_size=1)
        self.conv2 = nn.Conv2d(mid, out_channels, kernel_size=3)


class Net(nn.Module):
    def __init__(self, size):
        super().__init__()
        widths = configs[size]["widths"]
        self.stem = nn.Conv2d(3, 24, 3)
        self.stage1 = Down(24, widths[0])
        self.stage2 = Down(widths[0], widths[1])
        self.head = nn.Linear(widths[-1], 10)


configs = {
    0.5: {"widths": (48, 96)},
    1: {"widths": (116, 232)},  # error: [TL401, TL401]
    2: {"widths": (224, 488)},  # error: [TL401]
}

net = Net(0.5)

# Tuple unpacking and both branches of a conditional.
d_model, d_ff = 768, 3070  # error: [TL401]
ffn = nn.Sequential(nn.Linear(d_model, d_ff), nn.Linear(d_ff, d_model))
big = True
vocab = 50257 if big else 32000  # error: [TL401]
emb = nn.Embedding(vocab, d_model)
