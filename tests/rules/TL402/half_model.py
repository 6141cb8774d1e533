# torchlint-test: select=TL402
# A model cast to half precision trains in fp16: not reported.
import torch

model = torch.nn.Linear(512, 512).cuda().half()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for x, y in loader:
    loss = model(x.cuda().half()).sum()
    loss.backward()
    optimizer.step()
