# torchlint-test: select=TL502
# A class of the script's own named LightningCLI is not Lightning's.
class LightningCLI:
    def __init__(self, *args):
        self.args = args


cli = LightningCLI("model")
