# torchlint-test: select=TL204
# The package re-exports the factory: `from pkg.data import make_data_loader` means loaders.py's.
from .loaders import make_data_loader
