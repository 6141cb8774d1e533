# torchlint-test: select=TL202
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda:0")
pin = {"pin_memory": False}
pinned = {"pin_memory": True}

a = DataLoader(ds, batch_size=64, num_workers=4)  # error: [TL202]
b = DataLoader(ds, num_workers=4, pin_memory=False)  # error: [TL202]
c = DataLoader(ds, 64, True, None, None, 4, None, False)  # error: [TL202]
d = DataLoader(ds, **pin)  # error: [TL202]
e = DataLoader(  # error: [TL202]
    ds,
    batch_size=64,
    num_workers=4,
)
ok1 = DataLoader(ds, num_workers=4, pin_memory=True)
ok2 = DataLoader(ds, pin_memory=torch.cuda.is_available())
ok3 = DataLoader(ds, **pinned)
ok4 = DataLoader(ds, **unknown_kwargs)
ok5 = DataLoader(ds, 64, True, None, None, 4, None, True)
ok6 = DataLoader(ds, pin_memory=args.pin_memory)
