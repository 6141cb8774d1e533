# torchlint-test: select=TL203
# The run's options, imported by train.py (`from option import args`).
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--num_workers", type=int, default=2)
args = parser.parse_args()
