# torchlint-test: select=TL101
def sync_everything(x):
    return x.item()  # related: [TL101]
