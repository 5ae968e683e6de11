"""Measures over ranked lists, pure functions over arrays and dicts: Gender Stereotype Reinforcement
(:mod:`.gsr`) and effectiveness through ir_measures, averaged as trec_eval averages (:mod:`.effectiveness`)."""
from .effectiveness import DEFAULT_MEASURES, EvaluationResult, evaluate, paired_t_test, parse_measures, trec_eval_lines
from .gsr import GSRResult, PairedGSRTest, fit_gsr, paired_gsr_test, relative_gsr

__all__ = [
    "DEFAULT_MEASURES", "EvaluationResult", "GSRResult", "PairedGSRTest", "evaluate", "fit_gsr", "paired_gsr_test",
    "paired_t_test", "parse_measures", "relative_gsr", "trec_eval_lines",
]
