"""Measures over ranked lists, pure functions over arrays and dicts: Gender Stereotype Reinforcement
(:mod:`.gsr`) and effectiveness through ir_measures, averaged as trec_eval averages (:mod:`.effectiveness`)."""
from .effectiveness import DEFAULT_MEASURES, EvaluationResult, evaluate, paired_t_test, parse_measures, trec_eval_lines

_GSR_NAMES = ("GSRResult", "PairedGSRTest", "fit_gsr", "paired_gsr_test", "relative_gsr")


def __getattr__(name: str):
    """GSR's names, imported when first used (:mod:`.gsr` loads pandas, which an evaluation alone does not need)."""
    if name in _GSR_NAMES:
        from . import gsr

        return getattr(gsr, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_MEASURES", "EvaluationResult", "GSRResult", "PairedGSRTest", "evaluate", "fit_gsr", "paired_gsr_test",
    "paired_t_test", "parse_measures", "relative_gsr", "trec_eval_lines",
]
