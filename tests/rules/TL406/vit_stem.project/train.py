# torchlint-test: select=TL406
# Mixed-precision training of the ViT: not a conv net, so TL406 stays silent.
import torch

from vit import ViT

model = ViT().cuda()
optimizer = torch.optim.AdamW(model.parameters())


def train(loader):
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
