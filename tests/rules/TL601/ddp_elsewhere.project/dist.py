# torchlint-test: select=TL601
from torch.nn.parallel import DistributedDataParallel


def wrap(model, rank):
    return DistributedDataParallel(model.to(rank), device_ids=[rank])
