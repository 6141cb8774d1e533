from torch import nn

VOCAB_SIZE = 50257
WIDTH = 768


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB_SIZE, WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB_SIZE)

    def forward(self, tokens):
        return self.head(self.embed(tokens))
