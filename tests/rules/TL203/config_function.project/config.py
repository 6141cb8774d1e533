# torchlint-test: select=TL203
# The run's options, parsed by the function main.py and train.py call.
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=4)
parser.add_argument("--eval-workers", type=int, default=0)


def get_config():
    config = parser.parse_args()
    return config


def get_defaults():
    # Not the parsed options: a plain dict.
    return {"workers": 4}
