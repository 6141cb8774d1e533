# torchlint-test: select=TL201
from torch.utils.data import DataLoader

loader_kwargs = {"batch_size": 64, "shuffle": True}
zero_kwargs = {"batch_size": 64, "num_workers": 0}
good_kwargs = {"batch_size": 64, "num_workers": 4}
dict_kwargs = dict(batch_size=64, num_workers=6)
open_kwargs = {"batch_size": 64}
open_kwargs["num_workers"] = 4
updated_kwargs = {"batch_size": 64}
updated_kwargs.update(extra)
spread_kwargs = {**base_kwargs, "batch_size": 64}

a = DataLoader(ds, **loader_kwargs)  # error: [TL201]
b = DataLoader(ds, **zero_kwargs)  # error: [TL201]
c = DataLoader(ds, **{"num_workers": 0})  # error: [TL201]
ok1 = DataLoader(ds, **good_kwargs)
ok2 = DataLoader(ds, **dict_kwargs)
ok3 = DataLoader(ds, **open_kwargs)
ok4 = DataLoader(ds, **updated_kwargs)
ok5 = DataLoader(ds, **spread_kwargs)
ok6 = DataLoader(ds, **get_kwargs())


def build(config):
    kwargs = {"batch_size": config.batch_size}
    return DataLoader(config.dataset, **kwargs)  # error: [TL201]
