import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

dataset = TensorDataset(torch.randn(96, 8), torch.randn(96, 1))
loader = DataLoader(dataset, batch_size=8)
model = nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = nn.MSELoss()

iterator = iter(loader)
step = 0
with torch.profiler.profile(  # torchlint: instrument
    activities=[torch.profiler.ProfilerActivity.CPU]  # torchlint: instrument
    + ([torch.profiler.ProfilerActivity.CUDA] if torch.cuda.is_available() else []),  # torchlint: instrument
    schedule=torch.profiler.schedule(skip_first=10, wait=5, warmup=1, active=3, repeat=2),  # torchlint: instrument
    on_trace_ready=torch.profiler.tensorboard_trace_handler("./profiler_logs"),  # torchlint: instrument
    record_shapes=True,  # torchlint: instrument
    profile_memory=True,  # torchlint: instrument
    with_stack=True,  # torchlint: instrument
) as prof:  # torchlint: instrument indent=4
    while step < 12:
        with torch.profiler.record_function("data_preprocess"):  # torchlint: instrument indent=4
            x, y = next(iterator)
        with torch.profiler.record_function("forward"):  # torchlint: instrument dedent indent=4
            pred = model(x)
        with torch.profiler.record_function("loss_compute"):  # torchlint: instrument dedent indent=4
            loss = loss_fn(pred, y)
        with torch.profiler.record_function("optimizer_step"):  # torchlint: instrument dedent indent=4
            optimizer.zero_grad()
        with torch.profiler.record_function("backward"):  # torchlint: instrument dedent indent=4
            loss.backward()
        with torch.profiler.record_function("optimizer_step"):  # torchlint: instrument dedent indent=4
            optimizer.step()
        # torchlint: instrument dedent
        step += 1
        prof.step()  # torchlint: instrument
# torchlint: instrument dedent
print("done", step)
