"""Where a neural ranker trains: ``--device auto|cpu|cuda|cuda:N`` (``device=`` in Python), normalised, and the
settings that make a seeded run reproducible there.

``auto`` uses the GPU only for the model it speeds up: measured on one H200 against 16 CPU threads
(docs/rankers/neural.md), MatchPyramid's convolutions are faster on the GPU, DRMM's small dense layers are not
(its epochs took twice as long on the GPU). ``cuda`` is the current card, written ``cuda:N`` so that tensors'
devices compare equal to it (``torch.device("cuda") != torch.device("cuda:0")``).
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

from ...errors import IrfairInputError

DEVICE_PATTERN = re.compile(r"auto|cpu|cuda(?::[0-9]+)?")
DEVICE_HELP = "auto, cpu, cuda or cuda:N"
AUTO_GPU = {"drmm": False, "matchpyramid": True}  # where auto picks a GPU (when torch sees one)
CUBLAS_SETTING = ":4096:8"  # the workspace cuBLAS needs for deterministic results (CUDA's documentation)


def normalise_device(spec: str, model: str, cuda_devices: int, current: int = 0) -> str:
    """``cpu`` or ``cuda:N`` for ``spec`` (``auto``, ``cpu``, ``cuda``, ``cuda:N``) and ``model``, given the number of
    CUDA devices torch sees and the current one; IrfairInputError for a device that is not there."""
    text = str(spec).strip().lower()
    if not DEVICE_PATTERN.fullmatch(text):
        raise IrfairInputError(None, None, f"--device {spec!r}: expected {DEVICE_HELP}")
    if text == "auto":
        return f"cuda:{current}" if cuda_devices and AUTO_GPU.get(model, False) else "cpu"
    if text == "cpu":
        return "cpu"
    if not cuda_devices:
        raise IrfairInputError(None, None, f"--device {spec}: torch sees no CUDA device (a CPU build of torch, or no GPU); "
                                           "use --device cpu or auto")
    index = current if text == "cuda" else int(text.split(":")[1])
    if index >= cuda_devices:
        raise IrfairInputError(None, None, f"--device {spec}: torch sees {cuda_devices} CUDA device"
                                           f"{'s' if cuda_devices != 1 else ''} (cuda:0 to cuda:{cuda_devices - 1})")
    return f"cuda:{index}"


def resolve_device(spec: str | None, model: str) -> str:
    """:func:`normalise_device` with what torch sees here (``None``: ``auto``)."""
    import torch

    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    return normalise_device("auto" if spec is None else spec, model, count, torch.cuda.current_device() if count else 0)


@contextmanager
def reproducible(device: str, threads: int | None = None) -> Iterator[None]:
    """Deterministic algorithms while the block trains on ``device`` (and ``threads`` torch CPU threads), torch's
    settings restored afterwards. On a GPU, ``CUBLAS_WORKSPACE_CONFIG`` is set first (unless the user set it),
    before the first cuBLAS call, which deterministic cuBLAS needs; cuDNN's benchmark mode is off, and so is TF32
    (on by default for cuDNN's convolutions from Ampere on: its 10-bit mantissa took MatchPyramid's Vaswani MAP
    from the CPU's 0.2356 to 0.2222 on an H200, where float32 kernels differ from the CPU's in the last bits)."""
    import torch

    if device.startswith("cuda"):
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", CUBLAS_SETTING)
    backends = torch.backends
    previous = (torch.are_deterministic_algorithms_enabled(), torch.get_num_threads(), backends.cudnn.benchmark,
                backends.cudnn.allow_tf32, backends.cuda.matmul.allow_tf32)
    torch.use_deterministic_algorithms(True)
    backends.cudnn.benchmark = False
    backends.cudnn.allow_tf32 = backends.cuda.matmul.allow_tf32 = False
    if threads:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(previous[0])
        torch.set_num_threads(previous[1])
        backends.cudnn.benchmark, backends.cudnn.allow_tf32, backends.cuda.matmul.allow_tf32 = previous[2:]
