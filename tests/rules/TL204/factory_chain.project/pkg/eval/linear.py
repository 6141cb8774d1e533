# torchlint-test: select=TL204
# The validation loader is made by a function of this file that returns pkg.data's loader, handed down
# through two functions of this file to evaluate() of utils.py.
import torch

from pkg.data import make_data_loader
from pkg.eval.setup import setup_model
from pkg.eval.utils import evaluate


def make_eval_data_loader(dataset, batch_size, num_workers):
    test_data_loader = make_data_loader(dataset=dataset, batch_size=batch_size, num_workers=num_workers)
    return test_data_loader


def evaluate_classifiers(model, data_loader):
    return evaluate(model, data_loader, torch.cuda.current_device())


def eval_linear(model, val_data_loader, max_iter):
    for iteration in range(max_iter):
        if iteration % 1000 == 0:
            evaluate_classifiers(model, data_loader=val_data_loader)
    return evaluate_classifiers(model, data_loader=val_data_loader)


def run_eval_linear(model, dataset):
    model = setup_model(model)
    val_data_loader = make_eval_data_loader(dataset, 64, 8)
    return eval_linear(model, val_data_loader=val_data_loader, max_iter=10000)
