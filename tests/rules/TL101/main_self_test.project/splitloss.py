# torchlint-test: select=TL101,TL402
# No device of its own: the functions run on CUDA when train.py calls them; the self-test below does not.
import torch


class SplitLoss(torch.nn.Module):
    def forward(self, scores, targets):
        return torch.nn.functional.cross_entropy(scores, targets)


def log_every_batch(losses):
    for step, loss in enumerate(losses):  # error: [TL402]
        loss.backward()
        print(loss.item())  # error: [TL101]


if __name__ == "__main__":
    torch.manual_seed(42)
    embed = torch.nn.Embedding(8, 10)
    crit = SplitLoss()
    optimizer = torch.optim.SGD(embed.parameters(), lr=1)
    for _ in range(10):
        x = (torch.rand(100) * 7).long()
        c = crit(embed(x), x)
        print("Crit", c.item())
        optimizer.zero_grad()
        c.backward()
        optimizer.step()
