"""``irfair.pyterrier``: the PyTerrier hook under the name PyTerrier users look for (``pip install
'irfair[pyterrier]'``); the same objects as :mod:`irfair.hooks.pyterrier`, where they live."""
from __future__ import annotations

from .hooks.pyterrier import Genderedness, bias_measure_of, bias_measures, gsr_experiment

__all__ = ["Genderedness", "bias_measure_of", "bias_measures", "gsr_experiment"]
