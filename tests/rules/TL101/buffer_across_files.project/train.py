# torchlint-test: select=TL101
import torch

from moco_queue import Plain, Queue


def train(loader):
    model = torch.nn.parallel.DistributedDataParallel(Queue(8, 64).cuda())
    plain = Plain(8).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for batch in loader:
        out = model(batch.cuda())  # error: [TL101]
        out = plain(out)
        out.sum().backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
