# torchlint-test: select=TL202
# Never uses a GPU: pinning would not help, nothing to report.
from torch.utils.data import DataLoader

loader = DataLoader(ds, batch_size=64, num_workers=4)
for x, y in loader:
    model(x.to("cpu"))
