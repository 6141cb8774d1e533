# torchlint-test: select=TL101
# The helpers come through star imports; the model reaches the loop as a parameter that every call
# of this file fills with a module.
import torch
from torch.nn.utils.rnn import pack_padded_sequence

from metrics import *
from utils import *


def train(student, loader, optimizer, meter):
    for images, captions, lengths in loader:
        images = images.cuda()
        captions = captions.cuda()
        scores = student(images)
        scores, _ = pack_padded_sequence(scores, lengths, batch_first=True)
        targets, _ = pack_padded_sequence(captions, lengths, batch_first=True)
        loss = torch.nn.functional.cross_entropy(scores, targets)
        loss.backward()
        clip_gradients(student, 3.0)  # error: [TL101]
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        top5 = accuracy(scores, targets, 5)  # error: [TL101]
        meter.update(top5)
        # Host tensors in: no sync.
        accuracy(torch.zeros(4, 5), torch.zeros(4), 5)


def main():
    student = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 8).cuda())
    optimizer = torch.optim.AdamW(student.parameters())
    loader = torch.utils.data.DataLoader(list(range(10)), num_workers=2, pin_memory=True)
    for epoch in range(10):
        train(student, loader, optimizer, AverageMeter())


main()
