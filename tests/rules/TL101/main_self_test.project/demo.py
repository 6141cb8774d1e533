# torchlint-test: select=TL101,TL402
# A `__main__` block that trains a model from models.py, which it imports: run as a script it loads that
# module, so its CUDA counts here.
import torch

from models import build

if __name__ == "__main__":
    model = build()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in torch.randn(10, 4, 8):  # error: [TL402]
        loss = model(x).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(loss.item())  # error: [TL101]
