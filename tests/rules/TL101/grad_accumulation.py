# torchlint-test: select=TL101
# nanoGPT's shape: `while True:` with `optimizer.step()` is the step loop; the micro-batch loop inside
# it runs on every step too, and is not a step loop of its own.
import torch

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.AdamW(model.parameters())
scaler = torch.cuda.amp.GradScaler()
accum = 4
log_interval = 1
iter_num = 0


def get_batch(split):
    return torch.randn(4, 8, device="cuda"), torch.randn(4, 8, device="cuda")


while True:
    for micro_step in range(accum):
        x, y = get_batch("train")
        loss = (model(x) - y).pow(2).mean() / accum
        print(loss.item())  # error: [TL101]
        scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    if iter_num % log_interval == 0:
        lossf = loss.item() * accum  # error: [TL101]
    if iter_num % 100 == 0:
        print(loss.item())
    iter_num += 1


def epochs(loader):
    # The look-alike: an epoch loop around a loader loop that steps the optimizer.
    for epoch in range(10):
        for xb, yb in loader:
            loss = (model(xb.cuda()) - yb.cuda()).pow(2).mean()
            loss.backward()
            optimizer.step()
            total = loss.item()  # error: [TL101]
        print(loss.item())
