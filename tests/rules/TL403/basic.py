# torchlint-test: select=TL403
# fp32 CUDA training without TF32 matmuls.
import torch

model = torch.nn.Linear(512, 512).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

for x, y in loader:  # error: [TL403]
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
