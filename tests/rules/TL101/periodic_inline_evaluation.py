# torchlint-test: select=TL101,TL102
# An evaluation written inside the training loop, under a guard that runs it every N steps, is a loop of
# evaluation batches of its own (as it is when the loop calls a function that holds it): a sync in it
# costs every evaluation batch. What the guard runs once per evaluation is not per batch, and a loop
# under the guard that calls no model, or that trains, is not an evaluation.
import torch

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.AdamW(model.parameters())


def most_likely(logits):
    return logits.mean(-1).argmin().item()  # error: [TL101]


def examples():
    for i in range(100):
        yield i


for step in range(1000):
    last_step = step == 999
    if step % 250 == 0 or last_step:
        model.eval()
        correct = 0
        val_loss = torch.zeros((), device="cuda")
        for i, example in enumerate(examples()):
            tokens = torch.randn(4, 8).to("cuda")
            with torch.no_grad():
                logits = model(tokens)
                val_loss += logits.pow(2).mean()
            pred = most_likely(logits)
            correct += int(pred == example)
            if logits.max() > 10:  # error: [TL102]
                break
        print(val_loss.item(), correct)  # once per evaluation, after its loop
        for p in model.parameters():
            print(p.norm().item())  # once per parameter of a periodic report: no model call
        for _ in range(2):
            extra = model(torch.randn(4, 8, device="cuda")).sum()
            extra.backward()
            print(extra.item())  # trains: part of the periodic step, not an evaluation
        model.train()
    x = torch.randn(4, 8, device="cuda")
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
