"""Measures over ranked lists, pure functions over arrays and dicts: Gender Stereotype Reinforcement
(:mod:`.gsr`) and effectiveness through ir_measures, averaged as trec_eval averages (:mod:`.effectiveness`)."""
import importlib

# every name is imported when first used: :mod:`.gsr` loads pandas, which an evaluation alone does not need, and
# :mod:`.names` (what the command line lists) needs neither
_LAZY = {**dict.fromkeys(("DEFAULT_MEASURES", "EvaluationResult", "evaluate", "paired_t_test", "parse_measures",
                          "trec_eval_lines"), "effectiveness"),
         **dict.fromkeys(("GSRResult", "PairedGSRTest", "fit_gsr", "paired_gsr_test", "relative_gsr"), "gsr")}


def __getattr__(name: str):
    """A name of :data:`_LAZY`, imported from its module when first used."""
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_MEASURES", "EvaluationResult", "GSRResult", "PairedGSRTest", "evaluate", "fit_gsr", "paired_gsr_test",
    "paired_t_test", "parse_measures", "relative_gsr", "trec_eval_lines",
]
