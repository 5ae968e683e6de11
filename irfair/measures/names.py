"""The names of the measures and settings that the command line offers, importing nothing (the CLI lists them in
its help without loading numpy): bias measures, the default ones, corrections, exposure browsing models."""
from __future__ import annotations

# irfair.measures.ranking_bias.BIAS_MEASURES' keys, in its order
BIAS_MEASURE_NAMES: tuple[str, ...] = ("gsr", "rab", "arab", "nfairr", "texfair", "ee", "awrf")
# what an audit measures unless told otherwise (the exposure measures need groups: asked for by name)
DEFAULT_BIAS_MEASURES: tuple[str, ...] = ("gsr", "rab", "arab", "nfairr", "texfair")
# corrections of a family of p-values (irfair.measures.resampling.adjust_p)
CORRECTIONS: tuple[str, ...] = ("holm", "bonferroni", "bh", "none")
# browsing models of expected exposure (irfair.measures.exposure)
BROWSING_MODELS: tuple[str, ...] = ("trec2022", "gerr", "rbp")
