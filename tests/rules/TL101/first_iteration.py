# torchlint-test: select=TL101
# `if i == 0:` on a loop counter runs once per pass over the loop (examples/vae saves one image per
# epoch that way); a comparison with anything that is not a loop target still runs every step.
import torch


def test(model, loader, flag):
    model = model.cuda()
    for i, (data, _) in enumerate(loader):
        recon = model(data.cuda())
        if i == 0:
            first = recon.cpu()
        if 0 == i:
            print(recon.sum().item())
        if flag == 1:
            print(recon.mean().item())  # error: [TL101]
