# torchlint-test: select=TL102
# A comprehension's `if` takes the truth of each element: on a device tensor, one sync per element.
import torch

model = torch.nn.Linear(8, 8).cuda()
loader = torch.utils.data.DataLoader(list(range(16)), batch_size=4)
end_token = 3
host_scores = torch.arange(8)

for batch in loader:
    batch = batch.cuda()
    scores = model(batch)
    next_words = scores.argmax(1)
    incomplete = [i for i, word in enumerate(next_words) if word != end_token]  # error: [TL102]
    positive = [word for word in next_words if word > 0]  # error: [TL102]
    pairs = {a: b for a, b in zip(range(4), next_words) if b > 1}  # error: [TL102]
    # Look-alikes: the host list of `.tolist()` (TL101's, not this rule's), a host tensor, the enumerate
    # counter, a Python list, and a test that is not a comparison of the element.
    host_words = next_words.tolist()
    kept = [word for word in host_words if word != end_token]
    small = [value for value in host_scores if value > 2]
    first = [i for i, word in enumerate(next_words) if i > 2]
    plain = [n for n in [1, 2, 3] if n > 1]
    named = [word for word in next_words if word is not None]
    scores.sum().backward()
