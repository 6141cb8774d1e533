# torchlint-test: select=TL203
# `config = get_config()`: the fields of config.py's options, here and in the functions it is passed to.
from torch.utils.data import DataLoader

from config import get_config, get_defaults
from train import fit

config = get_config()
loader = DataLoader(dataset, batch_size=8, num_workers=config.workers)  # error: [TL203]
for epoch in range(10):
    for batch in loader:
        step(batch)
fit(dataset, config)

defaults = get_defaults()
other = DataLoader(dataset, batch_size=8, num_workers=defaults.workers)
for epoch in range(10):
    for batch in other:
        step(batch)
