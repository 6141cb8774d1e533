import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.Linear(4, 2)
pretrain_loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 2)), batch_size=4)
finetune_loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 2)), batch_size=4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

# Pre-training.
for x, y in pretrain_loader:
    loss = nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

# Fine-tuning: the loop to profile.
with torch.profiler.profile(  # torchlint: instrument
    activities=[torch.profiler.ProfilerActivity.CPU]  # torchlint: instrument
    + ([torch.profiler.ProfilerActivity.CUDA] if torch.cuda.is_available() else []),  # torchlint: instrument
    schedule=torch.profiler.schedule(skip_first=10, wait=5, warmup=1, active=3, repeat=2),  # torchlint: instrument
    on_trace_ready=torch.profiler.tensorboard_trace_handler("./profiler_logs"),  # torchlint: instrument
    record_shapes=True,  # torchlint: instrument
    profile_memory=True,  # torchlint: instrument
    with_stack=True,  # torchlint: instrument
) as prof:  # torchlint: instrument indent=4
    for x, y in finetune_loader:
        with torch.profiler.record_function("loss_compute"):  # torchlint: instrument indent=4
            loss = nn.functional.l1_loss(model(x), y)
        with torch.profiler.record_function("optimizer_step"):  # torchlint: instrument dedent indent=4
            optimizer.zero_grad()
        with torch.profiler.record_function("backward"):  # torchlint: instrument dedent indent=4
            loss.backward()
        with torch.profiler.record_function("optimizer_step"):  # torchlint: instrument dedent indent=4
            optimizer.step()
        prof.step()  # torchlint: instrument dedent
# torchlint: instrument dedent
