# torchlint-test: select=TL406
# A vision transformer's one patch-embedding conv does not make a conv net: not reported.
import torch
import torch.nn as nn


class PatchEmbed(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Conv2d(3, 768, kernel_size=16, stride=16)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


model = nn.Sequential(PatchEmbed(), nn.TransformerEncoder(nn.TransformerEncoderLayer(768, 12), 12)).cuda()
for x, y in loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
