# torchlint-test: select=TL102
# A mask made with `dtype=torch.bool` on the device, or on the host and moved there, is a boolean mask:
# indexing a device tensor with it reads how many elements are true. An integer index tensor is not a
# mask, and a host mask indexing a host tensor never touches the GPU.
import torch
import torch.nn.functional as F

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def info_nce(features, device):
    similarity = torch.matmul(features, features.T)
    mask = torch.eye(similarity.shape[0], dtype=torch.bool).to(device)
    off_diagonal = similarity[~mask]  # error: [TL102]
    keep = torch.ones(similarity.shape[0], dtype=torch.bool, device="cuda")
    kept = similarity[keep]  # error: [TL102]
    rows = torch.arange(similarity.shape[0], dtype=torch.long).to(device)
    picked = similarity[rows]
    host = torch.randn(4, 4)
    host_mask = torch.eye(4, dtype=torch.bool)
    print(host[host_mask])
    return F.cross_entropy(off_diagonal.view(similarity.shape[0], -1) + kept.sum() + picked.sum(), rows)


def train(loader):
    for x in loader:
        loss = info_nce(model(x.cuda()), "cuda")
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
