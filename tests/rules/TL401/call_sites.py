# torchlint-test: select=TL401
# Values that reach a layer through the parameters of an `__init__`, a method or a function, from the
# arguments at the file's call sites: each distinct value is reported where it is written, and a value
# computed from several written ones (`patch_size**2 * in_chans`) at the layer.
import torch.nn as nn

input_size = 784
hidden_size = 500  # error: [TL401]
num_classes = 10


class NeuralNet(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super().__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        self.fc2 = nn.Linear(hidden_size, num_classes)


model = NeuralNet(input_size, hidden_size, num_classes)


class Decoder(nn.Module):
    def __init__(self, embed_dim=1024, patch_size=16, in_chans=3):
        super().__init__()
        self.pred = nn.Linear(embed_dim, patch_size**2 * in_chans)  # error: [TL401]
        self.blocks = self._stage(embed_dim, 4)

    def _stage(self, width, depth):
        return nn.Sequential(*[nn.Linear(width, width) for _ in range(depth)])


def decoder_base(**kwargs):
    return Decoder(patch_size=16, embed_dim=768, **kwargs)


def decoder_huge(**kwargs):
    return Decoder(patch_size=14, embed_dim=1276, **kwargs)  # error: [TL401]


def mlp(width, classes=1000):
    return nn.Sequential(nn.Linear(width, width // 2), nn.Linear(width // 2, classes))


head = mlp(1288)  # error: [TL401]
tail = mlp(512, classes=1001)  # error: [TL401]
