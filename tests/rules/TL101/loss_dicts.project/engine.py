# torchlint-test: select=TL101
import util.misc as utils


def train_one_epoch(model, criterion, loader, optimizer, device):
    metric_logger = utils.MetricLogger()
    for samples, targets in loader:
        outputs = model(samples.to(device))
        loss_dict = criterion(outputs, targets.to(device))
        losses = sum(loss_dict[k] for k in loss_dict.keys())
        optimizer.zero_grad()
        losses.backward()
        optimizer.step()
        reduced = utils.reduce_dict(loss_dict)
        scaled = {k: v * 2.0 for k, v in reduced.items()}
        metric_logger.update(**scaled)  # error: [TL101]
        metric_logger.update(class_error=reduced["class_error"])  # error: [TL101]
        # Look-alikes: floats already read, a dict of host numbers, a checkpoint-like dict that mixes a
        # tensor with counters.
        metric_logger.update(**{k: v.item() for k, v in reduced.items()})  # error: [TL101]
        metric_logger.update(**utils.host_counts(reduced))
        state = {"loss": losses, "epoch": 3}
        metric_logger.update(epoch=state["epoch"])
