# torchlint-test: select=TL101
# printf-style formatting reads its operands as Python numbers: a device tensor among them is copied to
# the host on every step. Host numbers, strings and the loop counter are not.
import torch


def train(model, loader, optimizer, lr, name):
    model = model.cuda()
    for step, (x, y) in enumerate(loader):
        out = model(x.cuda())
        loss = (out - y.cuda()).pow(2).mean()
        correct = (out.argmax(1) == y.cuda()).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print("loss %.3f" % loss)  # error: [TL101]
        print("%d/%d correct" % (correct, len(y)))  # error: [TL101]
        print("step %d lr %.2e run %s" % (step, lr, name))
        print("%s" % name)
        tag = "%05d" % step
