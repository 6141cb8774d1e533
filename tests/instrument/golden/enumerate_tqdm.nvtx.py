import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
import contextlib  # torchlint: instrument

try:
    from tqdm import tqdm
except ImportError:
    def tqdm(iterable, **kwargs):
        return iterable

loader = DataLoader(TensorDataset(torch.randn(32, 6), torch.randint(0, 3, (32,))), batch_size=4)
model = nn.Linear(6, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
criterion = nn.CrossEntropyLoss()

tl_nvtx = torch.cuda.nvtx.range if torch.cuda.is_available() else contextlib.nullcontext  # torchlint: instrument
for i, (inputs, labels) in enumerate(tqdm(loader)):
    with tl_nvtx("train_step enumerate_tqdm.py:18-31"):  # torchlint: instrument indent=4
        with tl_nvtx("data_preprocess enumerate_tqdm.py:21-21"):  # torchlint: instrument indent=4
            inputs = inputs.to("cpu")
        with tl_nvtx("forward enumerate_tqdm.py:23-23"):  # torchlint: instrument dedent indent=4
            outputs = model(inputs)
        with tl_nvtx("loss_compute enumerate_tqdm.py:25-25"):  # torchlint: instrument dedent indent=4
            loss = criterion(outputs, labels)
        with tl_nvtx("optimizer_step enumerate_tqdm.py:27-27"):  # torchlint: instrument dedent indent=4
            optimizer.zero_grad()
        with tl_nvtx("backward enumerate_tqdm.py:29-29"):  # torchlint: instrument dedent indent=4
            loss.backward()
        with tl_nvtx("optimizer_step enumerate_tqdm.py:31-31"):  # torchlint: instrument dedent indent=4
            optimizer.step()
    # torchlint: instrument dedent dedent
