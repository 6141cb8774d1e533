# torchlint-test: select=TL601
# Accelerate's accumulate() skips the all-reduce on the micro-steps itself.
from accelerate import Accelerator
from torch.nn.parallel import DistributedDataParallel


def train(model, loader, optimizer):
    accelerator = Accelerator(gradient_accumulation_steps=4)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for i, (x, y) in enumerate(loader):
        with accelerator.accumulate(model):
            loss = model(x).sum()
            accelerator.backward(loss)
            if (i + 1) % 4 == 0:
                optimizer.step()
                optimizer.zero_grad()
