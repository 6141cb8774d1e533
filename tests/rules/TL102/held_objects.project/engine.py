# torchlint-test: select=TL102
import torch

from util.box_ops import clip_scale, count_matches


def train_one_epoch(model, criterion, plain, loader, optimizer):
    for samples, targets in loader:
        samples = samples.cuda()
        targets = [{k: v.cuda() for k, v in t.items()} for t in targets]
        outputs = model(samples)
        loss_dict = criterion(outputs, targets)  # error: [TL102]
        plain_dict = plain(outputs, targets)
        loss = loss_dict["loss"] + plain_dict["loss"]
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def evaluate(model, loader):
    for samples, host_targets in loader:
        outputs = model(samples.cuda())
        # The mask reads `host_targets`, which stays on the host; `outputs` is on the device, but it is
        # not what the helper masks.
        count_matches(host_targets, 0)
        count_matches(outputs, 0)  # error: [TL102]
        clip_scale(outputs.sum(), 10.0)
