# torchlint-test: select=TL203
# Lists of test loaders returned in a tuple, with `num_workers` from the options the caller passes:
# train.py tests every loader of `make_tests` in its epoch loop (the workers restart every epoch), and
# those of `make_final` once after training. `make_quiet`'s caller sets `num_workers` itself.
from torch.utils.data import DataLoader


def make_tests(args, names):
    loaders = []
    for name in names:
        loaders.append(DataLoader(list(range(8)), num_workers=args.num_workers, batch_size=1))  # error: [TL203]
    return names, loaders, len(names)


def make_final(args, names):
    loaders = []
    for name in names:
        loaders.append(DataLoader(list(range(8)), num_workers=args.num_workers, batch_size=1))
    return names, loaders


def make_quiet(args, names):
    loaders = []
    for name in names:
        loaders.append(DataLoader(list(range(8)), num_workers=args.num_workers, batch_size=1))
    return names, loaders
