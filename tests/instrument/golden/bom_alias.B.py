"""A UTF-8 file with a byte order mark that imports torch under an alias only: été."""
import torch as th
import torch  # torchlint: instrument
from torch.utils.data import DataLoader, TensorDataset
import os  # torchlint: instrument

loader = DataLoader(TensorDataset(th.randn(24, 3), th.randn(24, 1)), batch_size=4)
model = th.nn.Linear(3, 1)
optimizer = th.optim.SGD(model.parameters(), lr=0.1)
if torch.cuda.is_available() and hasattr(torch.cuda.memory, "_record_memory_history"):  # torchlint: instrument
    torch.cuda.memory._record_memory_history()  # torchlint: instrument
def tl_on_trace_ready(prof):  # torchlint: instrument
    sort_by = "self_cuda_memory_usage" if torch.cuda.is_available() else "self_cpu_memory_usage"  # torchlint: instrument
    print(prof.key_averages().table(sort_by=sort_by, row_limit=20))  # torchlint: instrument
    torch.profiler.tensorboard_trace_handler("./profiler_logs")(prof)  # torchlint: instrument
    if torch.cuda.is_available() and hasattr(torch.cuda.memory, "_dump_snapshot"):  # torchlint: instrument
        torch.cuda.memory._dump_snapshot(os.path.join("./profiler_logs", f"memory_snapshot_step{prof.step_num}.pickle"))  # torchlint: instrument
with torch.profiler.profile(  # torchlint: instrument
    activities=[torch.profiler.ProfilerActivity.CPU]  # torchlint: instrument
    + ([torch.profiler.ProfilerActivity.CUDA] if torch.cuda.is_available() else []),  # torchlint: instrument
    schedule=torch.profiler.schedule(skip_first=10, wait=5, warmup=1, active=3, repeat=2),  # torchlint: instrument
    on_trace_ready=tl_on_trace_ready,  # torchlint: instrument
    record_shapes=True,  # torchlint: instrument
    profile_memory=True,  # torchlint: instrument
) as prof:  # torchlint: instrument indent=4
    for x, y in loader:
        loss = th.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        prof.step()  # torchlint: instrument
# torchlint: instrument dedent
