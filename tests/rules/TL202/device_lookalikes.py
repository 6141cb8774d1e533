# torchlint-test: select=TL202
# No device: a Lightning Trainer on the CPU, a GradScaler of another package, and a class named
# Accelerator that is not Accelerate's. Nothing here runs on CUDA.
import lightning as L
from mylib import Accelerator, GradScaler
from torch.utils.data import DataLoader

trainer = L.Trainer(accelerator="cpu")
scaler = GradScaler()
acc = Accelerator()
loader = DataLoader(dataset, batch_size=32, num_workers=4)
