# No device here: train.py runs on CUDA. BoxLoss.forward runs on every training step (the criterion
# train.py's loop calls), and so does the function of this file it calls on each call.
import torch


def _positives(labels):
    probs = torch.sigmoid(labels)
    return probs[probs > 0.5]  # error: [TL102]


def _rare(values):
    return values.nonzero()


class BoxLoss(torch.nn.Module):
    def forward(self, predicted, labels):
        scores = torch.softmax(predicted, dim=-1)
        positive = torch.sigmoid(labels) != 0
        kept = scores[positive]  # error: [TL102]  # related: [TL102]
        hard = scores[scores > 0.9]  # error: [TL102]
        if predicted.shape[0] > 4:
            count = predicted.sum()
        _positives(labels)
        if self.training and hard.numel() % 1000 == 0:
            _rare(scores)
        return kept.sum() + hard.sum()


def sampled_check(out):
    # Called every 100 steps: not every step.
    probs = torch.sigmoid(out)
    return probs[probs > 0]


def epoch_summary(weights):
    # Called once per epoch, outside the step loop.
    probs = torch.sigmoid(weights)
    return probs[probs > 0]
