# torchlint-test: select=TL101
import torch

model = torch.nn.Linear(8, 8).cuda()
for x in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    print(loss.item())  # error: [TL101]

def broken(:  # error: [parse-error]
    pass
