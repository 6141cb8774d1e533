# torchlint-test: select=TL203
# The function sets the field itself before the loader reads it: what option.py gives is not what is read.
import torch


def main(args):
    args.num_workers = 0
    model = torch.nn.Linear(8, 8).cuda()
    loader = torch.utils.data.DataLoader(list(range(64)), num_workers=args.num_workers)
    for epoch in range(args.epochs):
        for x in loader:
            model(x.cuda()).sum().backward()


if __name__ == "__main__":
    from option import args

    main(args)
