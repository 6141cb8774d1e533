# torchlint-test: select=TL202,TL204
# A factory with keyword-only parameters that always pins its memory.
import torch


def make_data_loader(*, dataset, batch_size, num_workers, persistent_workers=False):
    data_loader = torch.utils.data.DataLoader(
        dataset,
        batch_size=batch_size,
        num_workers=num_workers,
        pin_memory=True,
        persistent_workers=persistent_workers,
    )
    return data_loader
