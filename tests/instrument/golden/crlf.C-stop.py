import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(32, 5), torch.randn(32, 1)), batch_size=4)
model = nn.Linear(5, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
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
        if prof.step_num >= 28:  # torchlint: instrument
            break  # torchlint: instrument
        out = model(x)
        loss = nn.functional.mse_loss(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        prof.step()  # torchlint: instrument
# torchlint: instrument dedent
print("crlf done")
