# torchlint-test: select=TL101
