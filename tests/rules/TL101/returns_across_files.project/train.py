# torchlint-test: select=TL101
# The loss's parts come back from another module on the host: reading them does not sync, and the
# call that copies them does, every step.
import torch

from utils.loss import compute_loss, device_loss, maybe_copy, pass_through, through_local
from utils.utils import clip_gradients, norms_when

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = torch.utils.data.DataLoader(list(range(10)), num_workers=2, pin_memory=True)
for x, y in loader:
    out = model(x.cuda(non_blocking=True))
    loss, parts = compute_loss(out, y.cuda(non_blocking=True))  # error: [TL101]
    loss.backward()
    clip_gradients(model, 1.0)  # error: [TL101]
    norms_when(model, False)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    print(float(parts[0]), float(parts[1]))
    first, second = parts[0], parts[1]
    print(float(first))
    kept, device_side = device_loss(out, y)
    print(float(device_side[0]))  # error: [TL101]
    copied = through_local(out)  # error: [TL101]
    print(float(copied))
    maybe_copy(out, False)
    pass_through(torch.zeros(2))
    pass_through(out)  # error: [TL101]
