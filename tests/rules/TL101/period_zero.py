# torchlint-test: select=TL101
# A period of 0 never runs its branch (`i % 0` raises, so the guard is short-circuited before it): an
# option off by default. A period of 1 runs on every step.
import torch
from absl import flags

FLAGS = flags.FLAGS
flags.DEFINE_integer("eval_step", 0, help="evaluate every N steps; 0 turns it off")
flags.DEFINE_integer("log_every", 1, help="log every N steps")


def train(model, loader, optimizer):
    model = model.cuda()
    for step, (x, y) in enumerate(loader):
        loss = model(x.cuda()).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if FLAGS.eval_step > 0 and step % FLAGS.eval_step == 0:
            print(loss.item())
        if step % FLAGS.log_every == 0:
            print(loss.item())  # error: [TL101]
