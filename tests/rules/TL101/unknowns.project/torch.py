# A project file named like torch: `import torch` in train.py still means PyTorch.
def nn(x):
    return x.item()
