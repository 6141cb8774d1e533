# torchlint-test: select=TL101
# `args` comes from main.py, where `-log-interval` defaults to 1: the guard runs every step.
import torch


def train(loader, model, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    steps = 0
    for epoch in range(args.epochs):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            steps += 1
            if steps % args.log_interval == 0:
                print(loss.item())  # error: [TL101]
            if steps % args.save_interval == 0:
                print(loss.item())
