# torchlint-test: select=TL102
# `a if cond else b` takes the truth of `cond` as an `if` does: on a 0-dim device tensor, a sync. The loop
# variable of a loop over a device tensor (or over `zip`/`enumerate` of device tensors) is a row of it, a
# device tensor too: EDM's sampler branches on `t_cur`, a rollout on each environment's `done`.
# Look-alikes: a condition on a Python number, and the fields of a loader's batch (often lists of
# strings: `for label in labels`).
import torch

net = torch.nn.Linear(4, 4).cuda()
t_steps = torch.linspace(0, 1, 18, device="cuda")
x = torch.randn(2, 4, device="cuda")
for i, (t_cur, t_next) in enumerate(zip(t_steps[:-1], t_steps[1:])):
    gamma = 0.5 if 0.1 <= t_cur <= 0.9 else 0  # error: [TL102]
    scale = 0.5 if i > 3 else 1.0
    x = net(x) * gamma * scale
dones = torch.zeros(8, device="cuda")
for step in range(100):
    action = net(x).argmax(-1)
    x = net(x)
    for idx, d in enumerate(dones):
        if d:  # error: [TL102]
            print(idx)
loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
for images, labels in loader:
    out = net(images.float().cuda())
    for label in labels:
        if label == "cat":
            print(label)
