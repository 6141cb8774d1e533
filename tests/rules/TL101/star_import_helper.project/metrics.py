# torchlint-test: select=TL101
# Star-imported too, without the helpers: the index tells which module has them.
class AverageMeter:
    def __init__(self):
        self.sum = 0

    def update(self, value):
        self.sum += value
