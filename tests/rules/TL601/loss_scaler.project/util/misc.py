# torchlint-test: select=TL601
import torch


class NativeScaler:
    def __init__(self):
        self._scaler = torch.cuda.amp.GradScaler()

    def __call__(self, loss, optimizer, clip_grad=None, update_grad=True):
        self._scaler.scale(loss).backward()  # related: [TL601]
        if update_grad:
            self._scaler.step(optimizer)
            self._scaler.update()


class AlwaysSteps:
    # Backward and step on every call: no accumulation, whatever the caller passes.
    def __call__(self, loss, optimizer, update_grad=True):
        loss.backward()
        optimizer.step()


class SometimesBackward:
    def __call__(self, loss, optimizer, update_grad=True):
        if update_grad:
            loss.backward()
            optimizer.step()
