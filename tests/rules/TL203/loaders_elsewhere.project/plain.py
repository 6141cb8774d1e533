# torchlint-test: select=TL203
import loaders

plain = loaders.make_plain_loader(range(10))
for epoch in range(3):
    for batch in plain:
        print(batch)
