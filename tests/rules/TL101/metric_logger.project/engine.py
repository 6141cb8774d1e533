# torchlint-test: select=TL101
# No device in this file: it comes from main.py, which imports it.
import util.misc as utils
from util.misc import all_reduce_mean, rarely_syncs


def train_one_epoch(model, loader, optimizer, device):
    metric_logger = utils.MetricLogger()
    for x, y in loader:
        loss = (model(x.to(device)) - y.to(device)).pow(2).mean()
        loss.backward()
        optimizer.step()
        metric_logger.update(loss=loss)  # error: [TL101]
        metric_logger.update(lr=optimizer.param_groups[0]["lr"], value=loss.item())  # error: [TL101]
        value = all_reduce_mean(loss)  # error: [TL101]
        rarely_syncs(loss, 3)
        utils.log_scalar(1.0)
        metric_logger.update(lr=optimizer.param_groups[0]["lr"])
        utils.maybe_synchronize()
    print(loss.item())
