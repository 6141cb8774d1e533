# torchlint-test: select=TL203
# The epoch loop tests each loader of a list another file returns, by index.
import torch

from data import make_final, make_quiet, make_tests
from option import args


def test(loader, net):
    for x in loader:
        net(x.cuda())


def main(args):
    net = torch.nn.Linear(8, 8).cuda()
    names, loaders, count = make_tests(args, ["a", "b"])
    final_names, finals = make_final(args, ["c"])
    for epoch in range(10):
        for index, name in enumerate(names):
            loader = loaders[index]
            test(loader, net)
    # Each final loader once: the sweep over them does not repeat.
    for index, name in enumerate(final_names):
        loader = finals[index]
        test(loader, net)


def quiet(args):
    args.num_workers = 0
    net = torch.nn.Linear(8, 8).cuda()
    names, loaders = make_quiet(args, ["a"])
    for epoch in range(10):
        for index, name in enumerate(names):
            loader = loaders[index]
            test(loader, net)


if __name__ == "__main__":
    main(args)
    quiet(args)
