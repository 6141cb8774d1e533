"""A UTF-8 file with a byte order mark that imports torch under an alias only: été."""
import torch as th
import torch  # torchlint: instrument
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(th.randn(24, 3), th.randn(24, 1)), batch_size=4)
model = th.nn.Linear(3, 1)
optimizer = th.optim.SGD(model.parameters(), lr=0.1)
with torch.profiler.profile(  # torchlint: instrument
    activities=[torch.profiler.ProfilerActivity.CPU]  # torchlint: instrument
    + ([torch.profiler.ProfilerActivity.CUDA] if torch.cuda.is_available() else []),  # torchlint: instrument
    schedule=torch.profiler.schedule(skip_first=10, wait=5, warmup=1, active=3, repeat=2),  # torchlint: instrument
    on_trace_ready=torch.profiler.tensorboard_trace_handler("./profiler_logs"),  # torchlint: instrument
    record_shapes=True,  # torchlint: instrument
    profile_memory=True,  # torchlint: instrument
    with_stack=True,  # torchlint: instrument
) as prof:  # torchlint: instrument indent=4
    for x, y in loader:
        with torch.profiler.record_function("loss_compute"):  # torchlint: instrument indent=4
            loss = th.nn.functional.mse_loss(model(x), y)
        with torch.profiler.record_function("optimizer_step"):  # torchlint: instrument dedent indent=4
            optimizer.zero_grad()
        with torch.profiler.record_function("backward"):  # torchlint: instrument dedent indent=4
            loss.backward()
        with torch.profiler.record_function("optimizer_step"):  # torchlint: instrument dedent indent=4
            optimizer.step()
        prof.step()  # torchlint: instrument dedent
# torchlint: instrument dedent
