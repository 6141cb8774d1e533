# torchlint-test: select=TL102
# `self.model.forward(tokens)` calls the model as `self.model(tokens)` does: a decoding loop around it
# runs once per generated token. A `forward` of something that is not a model is no model call.
import torch


class Generator:
    def __init__(self, model, tokenizer):
        self.model = model
        self.tokenizer = tokenizer

    @torch.no_grad()
    def generate(self, tokens, steps):
        done = torch.zeros(tokens.shape[0], dtype=torch.bool, device="cuda")
        for pos in range(steps):
            logits = self.model.forward(tokens)
            next_token = torch.argmax(logits[:, -1], dim=-1, keepdim=True)
            tokens = torch.cat([tokens, next_token], dim=1)
            done |= next_token.squeeze(1) == self.tokenizer.eos_id
            if all(done):  # error: [TL102]
                break
        return tokens

    def replay(self, tokens, steps):
        done = torch.zeros(tokens.shape[0], dtype=torch.bool, device="cuda")
        for pos in range(steps):
            self.tokenizer.forward(pos)
            done |= tokens[:, pos] == self.tokenizer.eos_id
            if all(done):
                break
        return tokens


model = torch.nn.Linear(8, 8).cuda()
