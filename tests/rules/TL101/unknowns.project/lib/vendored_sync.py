# Found through the short name the script imports (the folder sys.path adds is not read).
def pull(x):
    return x.cpu()  # related: [TL101]
