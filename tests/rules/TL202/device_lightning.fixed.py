# torchlint-test: select=TL202
# A Lightning Trainer on the GPU: its DataLoaders feed a CUDA model.
import lightning as L
from torch.utils.data import DataLoader

trainer = L.Trainer(accelerator="gpu", devices=2)
loader = DataLoader(dataset, batch_size=32, num_workers=4, pin_memory=True)  # error: [TL202]
