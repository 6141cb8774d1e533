# torchlint-test: select=TL101
# No device and no class in this file: the criterion, the losses and the meter are parameters whose
# classes main.py builds (or a factory of models/ does).


def train_one_epoch(model, criterion, quiet, third_party, loader, optimizer, device, meter):
    for x, y in loader:
        out = model(x.to(device))
        loss = criterion(out, y.to(device))  # error: [TL101]
        loss = loss + quiet(out, y.to(device))
        loss = loss + third_party(out, y.to(device))
        loss.backward()
        optimizer.step()
        meter.update(loss)  # error: [TL101]
        meter(loss)


def evaluate(model, first, second, loader, device):
    # The two calls pass the classes the other way round: neither parameter has one class.
    for x, y in loader:
        out = model(x.to(device))
        first(out, y.to(device))
        second(out, y.to(device))
