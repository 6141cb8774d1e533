# torchlint-test: select=TL101
class Meter:
    def __init__(self):
        self.values = []

    def update(self, value):
        self.values.append(value.item())  # related: [TL101]

    def __call__(self, value, flush=False):
        # A plain class's call operator that syncs only when the caller asks: not on every call.
        self.total = value if not self.values else self.total + value
        if flush:
            return self.total.item()
        return value
