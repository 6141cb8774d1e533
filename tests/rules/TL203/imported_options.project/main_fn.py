# torchlint-test: select=TL203
# The options reach the function through its one call, `main(args)`, with `args` imported from option.
import torch


def main(args):
    model = torch.nn.Linear(8, 8).cuda()
    loader = torch.utils.data.DataLoader(list(range(64)), num_workers=args.num_workers)  # error: [TL203]
    for epoch in range(args.epochs):
        for x in loader:
            model(x.cuda()).sum().backward()


if __name__ == "__main__":
    from option import args

    main(args)
