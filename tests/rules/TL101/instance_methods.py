# torchlint-test: select=TL101
# `logger.log(loss)` with `logger = Logger()` of the file runs Logger.log on every step: its `.item()`
# syncs every step. The same method called once after training does not.
import torch


class Logger:
    def __init__(self):
        self.history = []

    def log(self, loss):
        self.history.append(loss.item())  # error: [TL101]

    def summary(self):
        return sum(self.history)


model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
logger = Logger()
for x in torch.utils.data.DataLoader(list(range(64)), batch_size=8):
    loss = model(x.float().cuda()).sum()
    loss.backward()
    optimizer.step()
    logger.log(loss)
print(logger.summary())
