# torchlint-test: select=TL101
# What lives on the host is read without a device sync: NumPy values, Python numbers and tensors made
# without `device=`.
import numpy as np
import torch

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train(loader):
    for x, y in loader:
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
        loss.backward()
        optimizer.step()
        arr = np.random.rand(3)
        print(arr.item(0))
        pick = torch.randint(0, 10, (1,))
        index = pick.item()
        noise = torch.randn(3, device="cpu")
        print(noise.sum().item())
        seeds = torch.tensor([1, 2, 3])
        print(seeds.tolist())
        on_gpu = torch.randint(0, 10, (1,), device="cuda")
        print(on_gpu.item())  # error: [TL101]
        moved = torch.zeros(2).cuda()
        print(moved.tolist())  # error: [TL101]
        print(loss.item())  # error: [TL101]
        # `.numpy()` raises on a CUDA tensor: where it runs, it reads a host tensor. With force=True it
        # copies to the host first.
        targets = y.numpy()
        pred = loss.detach().numpy(force=True)  # error: [TL101]
        print(targets, pred, index)
