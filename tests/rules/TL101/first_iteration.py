# torchlint-test: select=TL101
# `if i == 0:` on a loop counter runs once per pass over the loop (examples/vae saves one image per
# epoch that way), and `if i <= 4:` on its first few passes (hifi-gan logs five validation samples);
# and `if shown < 5:` whose branch counts itself (`shown += 1`) at most five times; a comparison with
# anything that is not a loop target, a bound that may cover the whole loop, or a count that also goes
# down, still runs every step.
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
        if i <= 4:
            print(recon.max().item())
        if 3 > i:
            print(recon.min().item())
        if i < 100:
            print(recon.std().item())  # error: [TL101]
        if len(data) < 4:
            print(recon.var().item())  # error: [TL101]


def show_mistakes(model, loader):
    model = model.cuda()
    shown = 0
    kept = 0
    late = -100
    for data, target in loader:
        out = model(data.cuda())
        if shown < 5:
            shown += 1
            print("%d" % out.argmax())
        if kept < 5:
            kept += 1
            print("%d" % out.argmin())  # error: [TL101]
        kept -= 1
        if late < 5:
            late += 1
            print("%d" % out.sum())  # error: [TL101]
