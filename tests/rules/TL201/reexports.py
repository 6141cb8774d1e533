# torchlint-test: select=TL201
# PyTorch's classes imported from the modules that define them are the public classes; a module of
# another package with the same path tail is not.
import torch.utils.data.dataloader as dl
from torch.utils.data.dataloader import DataLoader
from mylib.utils.data.dataloader import DataLoader as OtherLoader

a = DataLoader(ds)  # error: [TL201]
b = dl.DataLoader(ds, num_workers=0)  # error: [TL201]
ok1 = DataLoader(ds, num_workers=4)
ok2 = OtherLoader(ds)
