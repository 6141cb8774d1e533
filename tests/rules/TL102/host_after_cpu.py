# torchlint-test: select=TL101,TL102
# A rollout helper that reads the policy's output back once (`pi.cpu()`, the one sync) and then samples on
# the host: the tensors it builds from host factories stay on the host through in-place updates (`acc +=
# ...`) and unary minus (`-torch.ones(n)`), so its mask and the `.item()` of what it returns read nothing
# from the device. A number written through a device mask from a `range` counter is a `masked_fill_`.
import torch
import torch.nn.functional as F


def sample_action(pi):
    pi = pi.cpu()  # error: [TL101]
    rand_nums = torch.rand(*pi.shape[:-1])
    cumu_sum = torch.zeros(pi.shape[:-1])
    actions = -torch.ones(pi.shape[:-1])
    for i in range(pi.shape[-1]):
        cumu_sum += pi[..., i]
        actions[(cumu_sum >= rand_nums) & (actions < 0)] = i
    return actions


model = torch.nn.Linear(4, 2).cuda()
env = make_env()
state = env.reset()
for t in range(100):
    logits = model(torch.FloatTensor(state)[None].cuda())
    action = sample_action(F.softmax(logits, dim=-1)).item()
    state, reward, done, info = env.step(action)
    for i in range(2):
        logits[logits > i] = i
    device_acc = torch.zeros(2, device="cuda")
    device_acc += logits[0]
    kept = device_acc[device_acc > 0]  # error: [TL102]
