# torchlint-test: select=TL205
import torch

device = torch.device("cuda")


def spectrogram(y, n_fft, win_size):
    window = torch.hann_window(win_size).to(y.device)  # error: [TL205]
    return torch.stft(y, n_fft, window=window, return_complex=True)


def spectrogram_there(y, n_fft, win_size):
    window = torch.hann_window(win_size, device=y.device)
    return torch.stft(y, n_fft, window=window, return_complex=True)


def generate(sampler, batches):
    images = []
    for batch_size in batches:
        x_T = torch.randn((batch_size, 3, 32, 32))  # error: [TL205]
        images.append(sampler(x_T.to(device)).cpu())
    return images


def generate_and_keep(sampler, batches):
    # The host tensor is used again: not moved "at once".
    kept = []
    for batch_size in batches:
        noise = torch.randn((batch_size, 3, 32, 32))
        out = sampler(noise.to(device))
        kept.append(noise)
    return kept


def two_moves(sampler):
    z = torch.zeros(4, 4)
    sampler(z.to(device), z.cuda())


def moved_to_host(sampler):
    w = torch.ones(8)
    sampler(w.to("cpu"))
