import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import os  # torchlint: instrument


def train(loader, model, opt):
	if torch.cuda.is_available() and hasattr(torch.cuda.memory, "_record_memory_history"):  # torchlint: instrument
		torch.cuda.memory._record_memory_history()  # torchlint: instrument
	def tl_on_trace_ready(prof):  # torchlint: instrument
		sort_by = "self_cuda_memory_usage" if torch.cuda.is_available() else "self_cpu_memory_usage"  # torchlint: instrument
		print(prof.key_averages().table(sort_by=sort_by, row_limit=20))  # torchlint: instrument
		torch.profiler.tensorboard_trace_handler("./profiler_logs")(prof)  # torchlint: instrument
		if torch.cuda.is_available() and hasattr(torch.cuda.memory, "_dump_snapshot"):  # torchlint: instrument
			torch.cuda.memory._dump_snapshot(os.path.join("./profiler_logs", f"memory_snapshot_step{prof.step_num}.pickle"))  # torchlint: instrument
	with torch.profiler.profile(  # torchlint: instrument
		activities=[torch.profiler.ProfilerActivity.CPU]  # torchlint: instrument
		+ ([torch.profiler.ProfilerActivity.CUDA] if torch.cuda.is_available() else []),  # torchlint: instrument
		schedule=torch.profiler.schedule(skip_first=10, wait=5, warmup=1, active=3, repeat=2),  # torchlint: instrument
		on_trace_ready=tl_on_trace_ready,  # torchlint: instrument
		record_shapes=True,  # torchlint: instrument
		profile_memory=True,  # torchlint: instrument
	) as prof:  # torchlint: instrument indent=tab
		for x, y in loader:
			try:  # torchlint: instrument indent=tab
				if x.shape[0] == 0:
					continue
				loss = nn.functional.mse_loss(model(x), y)
				opt.zero_grad()
				loss.backward()
				opt.step()
			finally:  # torchlint: instrument dedent
				prof.step()  # torchlint: instrument
	# torchlint: instrument dedent


if __name__ == "__main__":
	net = nn.Linear(3, 1)
	data = DataLoader(TensorDataset(torch.randn(24, 3), torch.randn(24, 1)), batch_size=4)
	train(data, net, torch.optim.SGD(net.parameters(), lr=0.1))
