# torchlint-test: select=TL101
# A loop that moves its batches to the device itself gets them on the host: a field it never moves
# (`lengths`, `labels`) is read without a sync, also after indexing, while the moved fields and what is
# computed from them are on the device. A move that only some paths make, a move of another loop's
# batch, or a rebinding inside an inner loop keeps the field's placement unknown.
import torch

Tensor = torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor


def train(model, loader, optimizer, device):
    for images, captions, lengths, labels in loader:
        images = images.to(device)
        captions = captions.cuda(non_blocking=True)
        scores = model(images, captions)
        loss = scores.sum()
        loss.backward()
        optimizer.step()
        print(lengths.tolist())
        order = scores.argsort()
        labels = labels[order]
        for j in range(labels.shape[0]):
            print(labels[j].tolist())
        print(captions.tolist())  # error: [TL101]
        print(loss.item())  # error: [TL101]


def validate(model, loader):
    for _, imgs, targets in loader:
        names = targets[:, 1].tolist()
        imgs = imgs.type(Tensor)
        print(model(imgs).sum().item(), names)  # error: [TL101]


def lookalikes(model, loader, optimizer, flag, device):
    # Nothing moved: the loader may yield device tensors (the placement follows the script's device).
    for x, y in loader:
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        print(y.tolist())  # error: [TL101]
    # A dtype cast is not a move.
    for x, y in loader:
        x = x.to(torch.float16)
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        print(y.tolist())  # error: [TL101]
    # Moved on one path only, before the read.
    for x, y in loader:
        if flag:
            y = y.cuda()
        x = x.to(device)
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        print(y.tolist())  # error: [TL101]
    # Rebound to a device tensor inside an inner loop: its next iteration reads a device tensor.
    for x, y in loader:
        x = x.to(device)
        for k in range(3):
            print(y.tolist())  # error: [TL101]
            y = model(x)
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
    # A field the loop never moves, unpacked: its elements are on the host too. The elements of a
    # moved field are on the device.
    for x, info in loader:
        [lr_in, lr_out] = info
        angles = lr_in[0].item() + lr_out[0].item()
        x = x.to(device)
        first, second = x
        loss = model(x).sum() * angles
        loss.backward()
        optimizer.step()
        print(first.sum().item())  # error: [TL101]
    # Moved through tensor methods (`x.squeeze().float().to(device)`): the loader yields host tensors.
    for x, y in loader:
        x = x.squeeze().float().to(device)
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
        print(y.tolist())
