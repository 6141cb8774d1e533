# torchlint-test: select=TL101,TL402
# A CPU self-test: seeding the CUDA generators (under `if torch.cuda.is_available():` or not) puts
# nothing on the GPU, so the loop's prints read host tensors and nothing is reported.
import torch

torch.manual_seed(42)
if torch.cuda.is_available():
    torch.cuda.manual_seed(42)
torch.cuda.manual_seed_all(42)

embed = torch.nn.Embedding(8, 10)
optimizer = torch.optim.SGD(embed.parameters(), lr=1)
for _ in range(10):
    x = (torch.rand(100, 1) * 7.99).long()
    loss = embed(x).sum()
    print(loss)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
