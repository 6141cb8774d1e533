# torchlint-test: select=TL103,TL202,TL205
# A module that binds `torch` to something of its own, not by an import.
class _Stub:
    def __getattr__(self, name):
        return self


torch = _Stub()
