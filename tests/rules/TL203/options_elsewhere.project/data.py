# torchlint-test: select=TL203
# `args.workers` is 4 in main.py (unless a function writes it itself); `args.persistent_workers` is True
# there; `args.prefetch` is not an option at all.
from torch.utils.data import DataLoader


def train(dataset, args):
    loader = DataLoader(dataset, batch_size=8, num_workers=args.workers)  # error: [TL203]
    for epoch in range(10):
        for batch in loader:
            step(batch)


def train_kept(dataset, args):
    loader = DataLoader(dataset, batch_size=8, num_workers=args.workers, persistent_workers=args.persistent_workers)
    for epoch in range(10):
        for batch in loader:
            step(batch)


def evaluate_once(dataset, args):
    loader = DataLoader(dataset, batch_size=8, num_workers=args.workers)
    for batch in loader:
        step(batch)


def train_unknown(dataset, args):
    loader = DataLoader(dataset, batch_size=8, num_workers=args.prefetch)
    for epoch in range(10):
        for batch in loader:
            step(batch)


def train_without_workers(dataset, args):
    # The function sets the field itself: main.py's 4 is not what the loader reads.
    args.workers = compute_workers()
    loader = DataLoader(dataset, batch_size=8, num_workers=args.workers)
    for epoch in range(10):
        for batch in loader:
            step(batch)
