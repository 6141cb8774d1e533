# torchlint-test: select=TL101
# A second caller whose options object the model cannot read.
from train import train

train(loader, model, load_options())
