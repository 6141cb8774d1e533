# torchlint-test: select=TL401
# Layers imported from their defining modules (`torch.nn.modules.linear`) are `torch.nn`'s layers.
from torch.nn.modules.linear import Linear
from torch.nn.modules.sparse import Embedding
import torch.nn.modules as modules
from mylib.nn.modules.linear import Linear as OtherLinear

head = Linear(768, 50257)  # error: [TL401]
emb = Embedding(50257, 768)  # error: [TL401]
proj = modules.Linear(1000, 1001)  # error: [TL401]
ok1 = Linear(768, 50304)
ok2 = OtherLinear(1000, 1001)
