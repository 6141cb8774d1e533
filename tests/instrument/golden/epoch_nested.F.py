"""A step loop nested in an epoch loop, over enumerate(tqdm(loader))."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

try:
    from tqdm import tqdm
except ImportError:  # the progress bar is optional
    def tqdm(iterable, **kwargs):
        return iterable


def main():
    data = TensorDataset(torch.randn(64, 16), torch.randint(0, 4, (64,)))
    train_loader = DataLoader(data, batch_size=8, shuffle=True)
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
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
        for epoch in range(3):
            model.train()
            for step, (x, y) in enumerate(tqdm(train_loader, desc=f"epoch {epoch}")):
                with torch.profiler.record_function("optimizer_step"):  # torchlint: instrument indent=4
                    optimizer.zero_grad(set_to_none=True)
                with torch.profiler.record_function("forward"):  # torchlint: instrument dedent indent=4
                    logits = model(x)
                with torch.profiler.record_function("loss_compute"):  # torchlint: instrument dedent indent=4
                    loss = criterion(logits, y)
                with torch.profiler.record_function("backward"):  # torchlint: instrument dedent indent=4
                    loss.backward()
                with torch.profiler.record_function("optimizer_step"):  # torchlint: instrument dedent indent=4
                    optimizer.step()
                prof.step()  # torchlint: instrument dedent
            print(f"epoch {epoch} done")
    # torchlint: instrument dedent


if __name__ == "__main__":
    main()
