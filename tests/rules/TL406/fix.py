# torchlint-test: select=TL406 unsafe-fixes
import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 3)
        self.conv2 = nn.Conv2d(64, 64, 3)

    def forward(self, x):
        return self.conv2(self.conv1(x)).mean()


def main(loader, rank):
    net = Net()  # the network
    net = net.cuda(rank)
    model = DDP(net, device_ids=[rank])
    model = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    for images, target in loader:  # error: [TL406]
        images = images.cuda(rank, non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(images)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
