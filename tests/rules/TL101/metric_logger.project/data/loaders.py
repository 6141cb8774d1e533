# torchlint-test: select=TL201,TL202
# Built here, iterated for CUDA training in engine.py: the project's device reaches it through main.py.
from torch.utils.data import DataLoader


def build_loader():
    return DataLoader(list(range(10)), batch_size=2)  # error: [TL201, TL202]
