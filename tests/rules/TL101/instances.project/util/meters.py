# torchlint-test: select=TL101
class Meter:
    def __init__(self):
        self.values = []

    def update(self, value):
        self.values.append(value.item())  # related: [TL101]

    def __call__(self, value):
        # A plain class's call operator that syncs only when the caller asks.
        if self.values:
            return value
        return value
