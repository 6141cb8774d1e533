# -*- coding: latin-1 -*-
# Café crème: a latin-1 file, with a multi-line string inside the loop.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(16, 2), torch.randn(16, 1)), batch_size=4)
model = nn.Linear(2, 1)
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
        note = """first line
  second line keeps its indentation
"""
        loss = nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        prof.step()  # torchlint: instrument
# torchlint: instrument dedent
