import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

prof = "a name the script already uses"
loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 1)), batch_size=4)
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
with torch.profiler.profile(  # torchlint: instrument
    activities=[torch.profiler.ProfilerActivity.CPU]  # torchlint: instrument
    + ([torch.profiler.ProfilerActivity.CUDA] if torch.cuda.is_available() else []),  # torchlint: instrument
    schedule=torch.profiler.schedule(skip_first=10, wait=5, warmup=1, active=3, repeat=2),  # torchlint: instrument
    on_trace_ready=torch.profiler.tensorboard_trace_handler("./profiler_logs"),  # torchlint: instrument
    record_shapes=True,  # torchlint: instrument
    profile_memory=True,  # torchlint: instrument
    with_stack=True,  # torchlint: instrument
) as tl_prof:  # torchlint: instrument indent=4
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        # torchlint: profile-off
        if tl_prof.current_action in (torch.profiler.ProfilerAction.RECORD, torch.profiler.ProfilerAction.RECORD_AND_SAVE):  # torchlint: instrument
            tl_prof.toggle_collection_dynamic(False, tl_prof.activities)  # torchlint: instrument
        total = sum(p.detach().abs().sum() for p in model.parameters())
        # torchlint: profile-on
        if tl_prof.current_action in (torch.profiler.ProfilerAction.RECORD, torch.profiler.ProfilerAction.RECORD_AND_SAVE):  # torchlint: instrument
            tl_prof.toggle_collection_dynamic(True, tl_prof.activities)  # torchlint: instrument
        optimizer.step()
        optimizer.zero_grad()
        tl_prof.step()  # torchlint: instrument
# torchlint: instrument dedent
print(prof)
