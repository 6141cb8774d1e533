# torchlint-test: select=TL102
import torch


class CTCConverter:
    def __init__(self, character):
        self.character = character

    def decode(self, text_index, length):
        texts = []
        probs = torch.softmax(text_index.float(), dim=-1)
        if probs.max() > 0.5:  # related: [TL102]
            texts.append(self.character[0])
        return texts


class AttnConverter:
    def __init__(self, character):
        self.character = character

    def decode(self, text_index, length):
        return [self.character[i] for i in range(length)]
