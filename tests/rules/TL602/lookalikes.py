# torchlint-test: select=TL602
# Names that are not PyTorch's DataParallel: another library's, the file's own class, DDP.
import torch
from torch.nn.parallel import DistributedDataParallel
from mylib.parallel import DataParallel


class Wrapper:
    def DataParallel(self, model):
        return model


model = torch.nn.Linear(10, 10)
a = DataParallel(model)
b = Wrapper().DataParallel(model)
c = DistributedDataParallel(model.cuda(), device_ids=[0])
