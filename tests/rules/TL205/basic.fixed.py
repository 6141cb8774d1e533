# torchlint-test: select=TL205
import numpy as np
import torch

device = torch.device("cuda")
values = [1.0, 2.0]

noise = torch.randn(16, 128).to(device)  # error: [TL205]
positions = torch.arange(512, device="cuda")  # error: [TL205]
mask = torch.ones(8, 8, dtype=torch.bool, device=device)  # error: [TL205]
scale = torch.full((4,), 0.5).to(device, torch.float16)  # error: [TL205]
buf = torch.zeros(1024)  # error: [TL205]
buf = buf.to(device)
host = torch.zeros(3)
like = torch.zeros_like(host, device="cuda")  # error: [TL205]

from_data = torch.tensor(values).to(device)
from_numpy = torch.from_numpy(np.zeros(3)).to(device)
as_tensor = torch.as_tensor(values).cuda()
made_there = torch.zeros(10, device=device)
stays = torch.zeros(10).to("cpu")
dtype_only = torch.ones(3).to(torch.float16)
used_first = torch.zeros(5)
used_first += 1
used_first = used_first.cuda()
