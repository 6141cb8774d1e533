# torchlint-test: select=TL204
# A factory of pinned loaders, and one whose loader is not known (built by a third party's helper).
import torch
from torchvision.datasets import folder


def pinned_loader(dataset):
    return torch.utils.data.DataLoader(dataset, batch_size=8, num_workers=2, pin_memory=True)


def other_loader(dataset):
    return folder.make_loader(dataset)
