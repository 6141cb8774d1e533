import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import os  # torchlint: instrument


class Trainer:
  def __init__(self):
    self.model = nn.Linear(4, 4)
    self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
    self.loader = DataLoader(TensorDataset(torch.randn(32, 4), torch.randn(32, 4)), batch_size=4)

  def fit(self):
    def tl_on_trace_ready(prof):  # torchlint: instrument
      metric = "self_cuda_time_total" if torch.cuda.is_available() else "self_cpu_time_total"  # torchlint: instrument
      print(prof.key_averages(group_by_stack_n=5).table(sort_by=metric, row_limit=10))  # torchlint: instrument
      torch.profiler.tensorboard_trace_handler("./profiler_logs")(prof)  # torchlint: instrument
      prof.export_stacks(os.path.join("./profiler_logs", f"profiler_stacks_step{prof.step_num}.txt"), metric=metric)  # torchlint: instrument
    with torch.profiler.profile(  # torchlint: instrument
      activities=[torch.profiler.ProfilerActivity.CPU]  # torchlint: instrument
      + ([torch.profiler.ProfilerActivity.CUDA] if torch.cuda.is_available() else []),  # torchlint: instrument
      schedule=torch.profiler.schedule(skip_first=10, wait=5, warmup=1, active=3, repeat=2),  # torchlint: instrument
      on_trace_ready=tl_on_trace_ready,  # torchlint: instrument
      with_stack=True,  # torchlint: instrument
      experimental_config=torch._C._profiler._ExperimentalConfig(verbose=True),  # torchlint: instrument
    ) as prof:  # torchlint: instrument indent=2
      for x, y in self.loader:
        loss = nn.functional.mse_loss(self.model(x), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        prof.step()  # torchlint: instrument
    # torchlint: instrument dedent


if __name__ == "__main__":
  Trainer().fit()
