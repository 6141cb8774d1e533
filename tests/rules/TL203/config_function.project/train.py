# torchlint-test: select=TL203
# `config` is what main.py passes: its get_config(), config.py's options.
from torch.utils.data import DataLoader


def fit(dataset, config):
    loader = DataLoader(dataset, batch_size=8, num_workers=config.workers)  # error: [TL203]
    evaluation = DataLoader(dataset, batch_size=8, num_workers=config.eval_workers)
    for epoch in range(10):
        for batch in loader:
            step(batch)
        for batch in evaluation:
            step(batch)
