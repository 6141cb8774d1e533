# torchlint-test: select=TL103,TL202,TL205
# `torch` and `DataLoader` come only from `from utils import *`: Python binds utils' public imports here,
# so these are torch's calls.
from utils import *

device = torch.device("cuda")
model = torch.nn.Linear(8, 8).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(list(range(64)), batch_size=8, num_workers=2)  # error: [TL202]

for x in loader:
    noise = torch.zeros(8).to(device)  # error: [TL205]
    loss = model(x.to(device) + noise).sum()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    torch.cuda.empty_cache()  # error: [TL103]
