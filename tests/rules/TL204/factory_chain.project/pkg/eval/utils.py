# torchlint-test: select=TL204
# evaluate() is called by linear.py only, with a loader that make_eval_data_loader got from
# pkg.data.make_data_loader: pinned, two files away. The batches come through a logger's generator.
import torch


class MetricLogger:
    def log_every(self, iterable, print_freq, header=None):
        for obj in iterable:
            yield obj


@torch.no_grad()
def evaluate(model, data_loader, device):
    metric_logger = MetricLogger()
    total = 0
    for samples, targets in metric_logger.log_every(data_loader, 10, "Test:"):
        outputs = model(samples.to(device))  # error: [TL204]
        targets = targets.to(device)  # error: [TL204]
        total += (outputs.argmax(1) == targets).sum()
    return total
