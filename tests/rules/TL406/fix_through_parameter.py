# torchlint-test: select=TL406 unsafe-fixes
# The model is a parameter of the training function, which the file calls once with a name: the model
# is converted where main() builds it, before it is moved, and the loop's move of the batch gets the
# memory format.
import torch
import torchvision


def train(model, loader, optimizer):
    scaler = torch.amp.GradScaler("cuda")
    model.train()
    for x, y in loader:  # error: [TL406]
        x = x.cuda(non_blocking=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(x).sum()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def main(loader):
    net = torchvision.models.resnet50()
    net = net.cuda()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    train(net, loader, optimizer)
