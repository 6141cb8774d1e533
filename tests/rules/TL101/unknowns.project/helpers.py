def sync_everything(x):
    return x.item()
