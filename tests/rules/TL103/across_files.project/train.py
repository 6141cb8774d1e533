# torchlint-test: select=TL103
# The step calls the other file's loss object, whose forward empties the cache on every call: reported
# here, at the call. A periodic one, one that never does, and a helper called once after training are not.
import torch

from losses import CollisionLoss, periodic_loss, plain_loss, release

model = torch.nn.Linear(8, 2).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = CollisionLoss()
for step, (x, y) in enumerate(loader):
    pred = model(x.cuda())
    loss = criterion(pred, y.cuda())  # error: [TL103]
    loss = loss + periodic_loss(pred, y.cuda(), step) + plain_loss(pred, y.cuda())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
release()
