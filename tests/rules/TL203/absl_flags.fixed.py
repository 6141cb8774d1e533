# torchlint-test: select=TL203
# absl's flags are options of the run like argparse's: `FLAGS.num_workers` takes its DEFINE's default
# (pytorch-ddpm's main.py shape).
import torch
from absl import app, flags
from torch.utils.data import DataLoader

FLAGS = flags.FLAGS
flags.DEFINE_integer("num_workers", 4, help="workers of Dataloader")
flags.DEFINE_integer("batch_size", 128, help="batch size")
flags.DEFINE_integer(name="eval_workers", default=0, help="workers of the evaluation loader")
flags.DEFINE_string("logdir", "./logs", "log folder")


def infiniteloop(dataloader):
    while True:
        for x, y in iter(dataloader):
            yield x


def train(dataset, model, optimizer):
    dataloader = DataLoader(dataset, batch_size=FLAGS.batch_size, shuffle=True, num_workers=FLAGS.num_workers, persistent_workers=True)  # error: [TL203]
    datalooper = infiniteloop(dataloader)
    for step in range(1000):
        optimizer.zero_grad()
        x_0 = next(datalooper).cuda()
        model(x_0).mean().backward()
        optimizer.step()


def train_more(dataset, model, optimizer):
    # No workers by default: nothing to restart.
    loader = DataLoader(dataset, batch_size=FLAGS.batch_size, num_workers=FLAGS.eval_workers)
    for epoch in range(10):
        for x in loader:
            optimizer.zero_grad()
            model(x.cuda()).mean().backward()
            optimizer.step()


def main(argv):
    train(None, torch.nn.Linear(8, 8).cuda(), None)


if __name__ == "__main__":
    app.run(main)
