# torchlint-test: select=TL203
# The options are parsed here; data.py's functions read them through their `args` parameter.
import argparse

import data

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=4)
parser.add_argument("--persistent-workers", action="store_true", default=True)
args = parser.parse_args()
data.train(dataset, args)
data.train_kept(dataset, args)
data.evaluate_once(dataset, args)
data.train_unknown(dataset, args)
data.train_without_workers(dataset, args)
