#!/usr/bin/env python3
# A loop directly under the main guard, with comments and a blank line inside.
import torch
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.randn(40, 4), torch.randn(40, 2)), batch_size=4)
    net = nn.Linear(4, 2)
    opt = optim.SGD(net.parameters(), lr=0.1)
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
        for batch in loader:
            x, y = batch  # unpack

            out = net(x)
            loss = nn.functional.mse_loss(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()  # the update
            prof.step()  # torchlint: instrument
    # torchlint: instrument dedent
    print("finished")
