# torchlint-test: select=TL203
# The loaders go to another file's trainer: the one `fit` and `run` iterate every epoch restarts its
# workers every epoch; the one `evaluate` iterates once does not.
import torch
from torch.utils.data import DataLoader

import trainer as training
from trainer import Trainer

model = torch.nn.Linear(8, 8).cuda()
train_loader = DataLoader(list(range(64)), num_workers=4)  # error: [TL203]
trainer = Trainer(model)
trainer.fit(train_loader, 10)
test_loader = DataLoader(list(range(64)), num_workers=4)
runner = Trainer(model)
runner.evaluate(test_loader)
again_loader = DataLoader(list(range(64)), num_workers=2)  # error: [TL203]
training.run(model, again_loader, 10)
