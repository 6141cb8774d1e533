# torchlint-test: select=TL101
# A branch that only runs off CUDA does not sync with a CUDA device.
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(8, 8).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train(loader):
    for x, y in loader:
        loss = (model(x.to(device)) - y.to(device)).pow(2).mean()
        loss.backward()
        optimizer.step()
        if device.type == "cuda":
            torch.cuda.synchronize()  # error: [TL101]
        elif device.type == "npu":
            torch.npu.synchronize()
        if not torch.cuda.is_available():
            print(loss.item())
