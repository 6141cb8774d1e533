# torchlint-test: select=TL102
