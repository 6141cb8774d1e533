# torchlint-test: select=TL901
import torch
from torch.autograd import detect_anomaly, set_detect_anomaly

ON = True
torch.autograd.set_detect_anomaly(True)  # error: [TL901]
set_detect_anomaly(ON)  # error: [TL901]
torch.cuda.set_sync_debug_mode("warn")  # error: [TL901]
torch.cuda.set_sync_debug_mode(1)  # error: [TL901]


def train(model, loader, optimizer):
    model.cuda()
    with torch.autograd.profiler.profile(use_cuda=True) as prof:  # error: [TL901]
        for x, y in loader:
            with detect_anomaly():  # error: [TL901]
                loss = model(x.cuda()).sum()
                loss.backward()
            optimizer.step()
    with torch.autograd.profiler.emit_nvtx():  # error: [TL901]
        for x, y in loader:
            loss = model(x.cuda()).sum()
            loss.backward()
            optimizer.step()
    torch.autograd.gradcheck(model, (x,))  # error: [TL901]
