# torchlint-test: select=TL203
from torch.utils.data import DataLoader


def train(opt):
    loader = DataLoader(dataset, batch_size=8, num_workers=int(opt.workers))  # error: [TL203]
    maybe_none = DataLoader(dataset, batch_size=8, num_workers=opt.zero)
    for epoch in range(10):
        for batch in loader:
            step(batch)
        for batch in maybe_none:
            step(batch)
