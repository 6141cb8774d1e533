import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import os  # torchlint: instrument

try:
    from tqdm import tqdm
except ImportError:
    def tqdm(iterable, **kwargs):
        return iterable

loader = DataLoader(TensorDataset(torch.randn(32, 6), torch.randint(0, 3, (32,))), batch_size=4)
model = nn.Linear(6, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.CrossEntropyLoss()

def tl_on_trace_ready(prof):  # torchlint: instrument
    os.makedirs("./profiler_logs", exist_ok=True)  # torchlint: instrument
    prof.export_chrome_trace(os.path.join("./profiler_logs", f"chrome_step{prof.step_num}.pt.trace.json"))  # torchlint: instrument
with torch.profiler.profile(  # torchlint: instrument
    activities=[torch.profiler.ProfilerActivity.CPU]  # torchlint: instrument
    + ([torch.profiler.ProfilerActivity.CUDA] if torch.cuda.is_available() else []),  # torchlint: instrument
    schedule=torch.profiler.schedule(skip_first=10, wait=5, warmup=1, active=3, repeat=2),  # torchlint: instrument
    on_trace_ready=tl_on_trace_ready,  # torchlint: instrument
) as prof:  # torchlint: instrument indent=4
    for i, (inputs, labels) in enumerate(tqdm(loader)):
        inputs = inputs.to("cpu")
        outputs = model(inputs)
        loss = criterion(outputs, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        prof.step()  # torchlint: instrument
# torchlint: instrument dedent
