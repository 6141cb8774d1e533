# torchlint-test: select=TL404
from .model import Net
