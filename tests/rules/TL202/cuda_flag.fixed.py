# torchlint-test: select=TL202
# CUDA is turned on by a flag: the script can run on a GPU.
import argparse

from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--no-cuda", action="store_true")
args = parser.parse_args()

loader = DataLoader(ds, batch_size=64, num_workers=4, pin_memory=True)  # error: [TL202]
