# torchlint-test: select=TL203 pin=>=0.4.0
# A requirement with an old floor and no upper bound: the project may run a PyTorch that has
# persistent_workers, so the loader is reported, and the fix is unsafe (it fails on the floor's version).
from torch.utils.data import DataLoader

loader = DataLoader(train_set, batch_size=64, num_workers=4)  # error: [TL203]
for epoch in range(3):
    for batch in loader:
        pass
