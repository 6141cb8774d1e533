# torchlint-test: select=TL203 target-torch=1.6
# PyTorch 1.6 has no persistent_workers.
from torch.utils.data import DataLoader

loader = DataLoader(train_set, batch_size=64, num_workers=4)
for epoch in range(3):
    for batch in loader:
        pass
