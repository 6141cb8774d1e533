# The project's one torch.nn class with a `detect_boxes` method: what `model.detect_boxes(...)` runs
# in train.py's evaluation, whose model comes from a checkpoint. `decode` is a method of two classes,
# so `model.decode(...)` is not followed; `rescore` is called on an object that is not a model.
import torch


class Detector(torch.nn.Module):
    def detect_boxes(self, scores):
        probs = torch.sigmoid(scores)
        boxes = probs[probs > 0.5]  # error: [TL102]  # related: [TL102]
        if boxes.max() > 1:  # error: [TL102]
            boxes = boxes / boxes.max()
        return boxes

    def decode(self, scores):
        probs = torch.sigmoid(scores)
        return probs[probs > 0]

    def rescore(self, scores):
        probs = torch.sigmoid(scores)
        return probs[probs > 0]


class Other(torch.nn.Module):
    def decode(self, scores):
        return torch.sigmoid(scores).nonzero()
