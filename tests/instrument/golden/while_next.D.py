import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import os  # torchlint: instrument

dataset = TensorDataset(torch.randn(96, 8), torch.randn(96, 1))
loader = DataLoader(dataset, batch_size=8)
model = nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss()

iterator = iter(loader)
step = 0
def tl_on_trace_ready(prof):  # torchlint: instrument
    os.makedirs("./profiler_logs", exist_ok=True)  # torchlint: instrument
    prof.export_chrome_trace(os.path.join("./profiler_logs", f"chrome_step{prof.step_num}.pt.trace.json"))  # torchlint: instrument
with torch.profiler.profile(  # torchlint: instrument
    activities=[torch.profiler.ProfilerActivity.CPU]  # torchlint: instrument
    + ([torch.profiler.ProfilerActivity.CUDA] if torch.cuda.is_available() else []),  # torchlint: instrument
    schedule=torch.profiler.schedule(skip_first=10, wait=5, warmup=1, active=3, repeat=2),  # torchlint: instrument
    on_trace_ready=tl_on_trace_ready,  # torchlint: instrument
) as prof:  # torchlint: instrument indent=4
    while step < 12:
        x, y = next(iterator)
        pred = model(x)
        loss = loss_fn(pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        prof.step()  # torchlint: instrument
# torchlint: instrument dedent
print("done", step)
