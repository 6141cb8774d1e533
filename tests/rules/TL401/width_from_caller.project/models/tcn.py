# torchlint-test: select=TL401
from torch import nn


class TCN(nn.Module):
    def __init__(self, input_size, output_size, hidden):
        super().__init__()
        self.encoder = nn.Embedding(output_size, input_size)  # error: [TL401]
        self.conv = nn.Conv1d(input_size, hidden, kernel_size=3)  # error: [TL401]
        self.decoder = nn.Linear(hidden, output_size)


class Head(nn.Module):
    def __init__(self, small, wide):
        super().__init__()
        self.proj = nn.Linear(small, wide)
