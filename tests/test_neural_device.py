"""Where neural rankers train: --device normalised (so that tensors' devices compare equal to it), refused in one
line when torch does not see it, and the settings that make a seeded run reproducible (CUBLAS_WORKSPACE_CONFIG
before the first cuBLAS call, deterministic algorithms), all testable without a GPU."""
from __future__ import annotations

import os

import pytest
import torch
from faults_data import run_cli

from irfair.errors import IrfairInputError
from irfair.rankers.neural.device import CUBLAS_SETTING, normalise_device, reproducible


@pytest.mark.parametrize(("spec", "model", "count", "current", "expected"), [
    ("auto", "drmm", 1, 0, "cpu"),  # DRMM trains faster on the CPU
    ("auto", "matchpyramid", 1, 0, "cuda:0"),
    ("auto", "matchpyramid", 0, 0, "cpu"),
    ("cpu", "matchpyramid", 2, 1, "cpu"),
    ("cuda", "drmm", 2, 1, "cuda:1"),  # the current card, spelled out
    (" CUDA:1 ", "drmm", 2, 0, "cuda:1"),
])
def test_devices_are_normalised(spec, model, count, current, expected):
    assert normalise_device(spec, model, count, current) == expected


def test_a_normalised_cuda_device_compares_equal_to_a_tensors_device():
    """Tensors sent to "cuda" sit on cuda:0, and torch.device("cuda") != torch.device("cuda:0"): MatchPyramid re-sent
    its whole vocabulary to the card on every batch. The normalised name is the one a tensor reports."""
    assert torch.device("cuda") != torch.device("cuda:0")
    assert torch.device(normalise_device("cuda", "matchpyramid", 1, 0)) == torch.device("cuda", 0)


@pytest.mark.parametrize(("spec", "count", "message"), [
    ("gpu", 1, "--device 'gpu': expected auto, cpu, cuda or cuda:N"),
    ("cuda", 0, "--device cuda: torch sees no CUDA device"),
    ("cuda:2", 2, "--device cuda:2: torch sees 2 CUDA devices (cuda:0 to cuda:1)"),
])
def test_a_device_torch_does_not_see_is_one_line(spec, count, message):
    with pytest.raises(IrfairInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        normalise_device(spec, "drmm", count)


def test_reproducible_settings_on_a_gpu_are_made_before_training_and_restored(monkeypatch):
    monkeypatch.delenv("CUBLAS_WORKSPACE_CONFIG", raising=False)
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", True)  # torch's default for convolutions
    before = (torch.are_deterministic_algorithms_enabled(), torch.get_num_threads(), torch.backends.cuda.matmul.allow_tf32)
    with reproducible("cuda:0"):
        assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == CUBLAS_SETTING and torch.are_deterministic_algorithms_enabled()
        assert torch.backends.cudnn.benchmark is False
        # float32 throughout: TF32's 10-bit mantissa moved MatchPyramid's Vaswani MAP by 0.013 on an H200
        assert torch.backends.cudnn.allow_tf32 is False and torch.backends.cuda.matmul.allow_tf32 is False
    assert (torch.are_deterministic_algorithms_enabled(), torch.get_num_threads(), torch.backends.cuda.matmul.allow_tf32) == before
    assert torch.backends.cudnn.allow_tf32 is True
    monkeypatch.setenv("CUBLAS_WORKSPACE_CONFIG", ":16:8")  # the user's own setting is kept
    with reproducible("cuda:0"):
        assert os.environ["CUBLAS_WORKSPACE_CONFIG"] == ":16:8"
    with reproducible("cpu", threads=1):
        assert torch.get_num_threads() == 1 and torch.are_deterministic_algorithms_enabled()


def test_the_cli_refuses_a_device_before_reading_anything(tmp_path):
    args = ["train", "--ranker", "matchpyramid", "--corpus", "nowhere", "--topics", "nowhere", "--qrels", "nowhere",
            "--candidates", "nowhere", "--out", str(tmp_path / "x.run")]
    code, _, err = run_cli([*args, "--device", "gpu"])
    assert code == 2 and "--device: must be auto, cpu, cuda or cuda:N" in err
    if not torch.cuda.is_available():
        code, _, err = run_cli([*args, "--device", "cuda"])
        assert (code, err) == (2, "irfair: error: --device cuda: torch sees no CUDA device (a CPU build of torch, or no GPU); "
                                  "use --device cpu or auto\n")
