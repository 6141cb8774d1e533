# torchlint-test: select=TL401
# A constant written once is reported where it is written (line 8), not at the layer that uses it.
import torch
import torch.nn as nn
from torch import nn as tnn
from mylib import Linear

VOCAB_SIZE = 50257  # error: [TL401]
D_MODEL = 768
HIDDEN = 3 * 100


class GPT(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.wte = nn.Embedding(VOCAB_SIZE, D_MODEL)
        self.lm_head = nn.Linear(D_MODEL, 50257, bias=False)  # error: [TL401]
        self.proj = torch.nn.Linear(in_features=D_MODEL, out_features=1000)
        self.mlp = tnn.Linear(D_MODEL, HIDDEN)  # error: [TL401]
        self.head = nn.Linear(D_MODEL, 10)
        self.cls = nn.Linear(D_MODEL, n_classes)
        self.stem = nn.Conv2d(3, 64, kernel_size=7, stride=2)
        self.conv = nn.Conv2d(64, 100, 3)  # error: [TL401]
        self.conv1d = nn.Conv1d(in_channels=196, out_channels=256, kernel_size=3)  # error: [TL401]
        self.conv3d = nn.Conv3d(1, 32, 3)
        self.attn = nn.MultiheadAttention(100, 4)  # error: [TL401]
        self.lstm = nn.LSTM(300, 500, num_layers=2)  # error: [TL401, TL401]
        self.gru = nn.GRU(input_size=512, hidden_size=1000)
        self.small = nn.Linear(50, 60)
        self.other = Linear(50257, 50257)
        self.dynamic = nn.Linear(D_MODEL, len(tokenizer))
