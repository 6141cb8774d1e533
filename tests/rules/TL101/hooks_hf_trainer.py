# torchlint-test: select=TL101,TL102
# A Hugging Face Trainer subclass: compute_loss runs on every training step.
import torch
from transformers import Trainer


class WeightedTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        outputs = model(**inputs)
        loss = outputs.loss
        if torch.isnan(loss).any():  # error: [TL102]
            raise ValueError("nan")
        self.seen.append(loss.item())  # error: [TL101]
        return (loss, outputs) if return_outputs else loss

    def log_summary(self):
        print(self.state.global_step)


model = torch.nn.Linear(2, 2).cuda()
