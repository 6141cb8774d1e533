import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

try:
    from tqdm import tqdm
except ImportError:
    def tqdm(iterable, **kwargs):
        return iterable

loader = DataLoader(TensorDataset(torch.randn(32, 6), torch.randint(0, 3, (32,))), batch_size=4)
model = nn.Linear(6, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.CrossEntropyLoss()

with torch.profiler.profile(  # torchlint: instrument
    activities=[torch.profiler.ProfilerActivity.CPU]  # torchlint: instrument
    + ([torch.profiler.ProfilerActivity.CUDA] if torch.cuda.is_available() else []),  # torchlint: instrument
    schedule=torch.profiler.schedule(skip_first=10, wait=5, warmup=1, active=3, repeat=2),  # torchlint: instrument
    on_trace_ready=torch.profiler.tensorboard_trace_handler("./profiler_logs"),  # torchlint: instrument
    record_shapes=True,  # torchlint: instrument
    profile_memory=True,  # torchlint: instrument
    with_stack=True,  # torchlint: instrument
) as prof:  # torchlint: instrument indent=4
    for i, (inputs, labels) in enumerate(tqdm(loader)):
        with torch.profiler.record_function("data_preprocess"):  # torchlint: instrument indent=4
            inputs = inputs.to("cpu")
        with torch.profiler.record_function("forward"):  # torchlint: instrument dedent indent=4
            outputs = model(inputs)
        with torch.profiler.record_function("loss_compute"):  # torchlint: instrument dedent indent=4
            loss = criterion(outputs, labels)
        with torch.profiler.record_function("optimizer_step"):  # torchlint: instrument dedent indent=4
            optimizer.zero_grad()
        with torch.profiler.record_function("backward"):  # torchlint: instrument dedent indent=4
            loss.backward()
        with torch.profiler.record_function("optimizer_step"):  # torchlint: instrument dedent indent=4
            optimizer.step()
        prof.step()  # torchlint: instrument dedent
# torchlint: instrument dedent
