# torchlint-test: select=TL203
# The run's options, parsed when the module is imported: `from option import args` elsewhere.
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--num_workers", type=int, default=4)
parser.add_argument("--epochs", type=int, default=10)
args = parser.parse_args()
