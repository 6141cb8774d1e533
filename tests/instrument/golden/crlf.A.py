import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(32, 5), torch.randn(32, 1)), batch_size=4)
model = nn.Linear(5, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
def tl_on_trace_ready(prof):  # torchlint: instrument
    sort_by = "cuda_time_total" if torch.cuda.is_available() else "cpu_time_total"  # torchlint: instrument
    print(prof.key_averages().table(sort_by=sort_by, row_limit=20))  # torchlint: instrument
    torch.profiler.tensorboard_trace_handler("./profiler_logs")(prof)  # torchlint: instrument
with torch.profiler.profile(  # torchlint: instrument
    activities=[torch.profiler.ProfilerActivity.CPU]  # torchlint: instrument
    + ([torch.profiler.ProfilerActivity.CUDA] if torch.cuda.is_available() else []),  # torchlint: instrument
    schedule=torch.profiler.schedule(skip_first=10, wait=5, warmup=1, active=3, repeat=2),  # torchlint: instrument
    on_trace_ready=tl_on_trace_ready,  # torchlint: instrument
    record_shapes=True,  # torchlint: instrument
    with_flops=True,  # torchlint: instrument
) as prof:  # torchlint: instrument indent=4
    for x, y in loader:
        out = model(x)
        loss = nn.functional.mse_loss(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        prof.step()  # torchlint: instrument
# torchlint: instrument dedent
print("crlf done")
