# torchlint-test: select=TL203
# Options whose loaders load in the training process: no workers to restart.
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--num_workers", type=int, default=0)
args = parser.parse_args()
