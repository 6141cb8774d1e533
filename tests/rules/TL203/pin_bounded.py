# torchlint-test: select=TL203 pin=>=1.4,<1.7
# A requirement that allows nothing with persistent_workers (added in 1.7): silent.
from torch.utils.data import DataLoader

loader = DataLoader(train_set, batch_size=64, num_workers=4)
for epoch in range(3):
    for batch in loader:
        pass
