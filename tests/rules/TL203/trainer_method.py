# torchlint-test: select=TL203
# The loader is handed to a method of an object the file builds from its own class, and that method
# iterates it once per epoch: its workers start again every epoch. A method that iterates it once does
# not restart them.
import torch
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model):
        self.model = model

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x in loader:
                self.model(x.cuda()).sum().backward()

    def evaluate(self, loader):
        with torch.no_grad():
            for x in loader:
                self.model(x.cuda())


def main():
    model = torch.nn.Linear(8, 8).cuda()
    trainer = Trainer(model)
    train_loader = DataLoader(list(range(64)), num_workers=4)  # error: [TL203]
    trainer.fit(train_loader, 10)
    test_loader = DataLoader(list(range(64)), num_workers=4)
    trainer.evaluate(test_loader)


main()
