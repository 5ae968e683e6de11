"""Classification audits: differential fairness, statistical and causal gaps, counterfactual data
augmentation, reweighting/resampling and Social Norm Bias; each paper's word lists and templates are the
defaults of the function that implements it (:mod:`irfair.fairness.wordlists`)."""
from .cda import aggregate_occupation_bias, augment, counterfactual, language_model_bias, occupation_bias
from .differential import (
    DifferentialFairness,
    bias_amplification,
    differential_fairness,
    differential_fairness_table,
    epsilon_from_probabilities,
)
from .gaps import (
    GroupGaps,
    MultiGroupGaps,
    causal_gaps,
    causal_gaps_from_model,
    gap_direction,
    statistical_gaps,
    statistical_gaps_by_group,
)
from .reweigh import kamiran_calders_weights, mitigate, oversample, undersample
from .snob import (
    NormScorer,
    SocialNormBias,
    balancing_weights,
    norm_scores_by_class,
    social_norm_bias,
    task_relevant_words,
)

__all__ = [
    "DifferentialFairness", "GroupGaps", "MultiGroupGaps", "NormScorer", "SocialNormBias", "aggregate_occupation_bias", "augment",
    "balancing_weights", "bias_amplification", "causal_gaps", "causal_gaps_from_model", "counterfactual", "differential_fairness",
    "differential_fairness_table", "epsilon_from_probabilities", "gap_direction", "kamiran_calders_weights",
    "language_model_bias", "mitigate", "norm_scores_by_class", "occupation_bias", "oversample", "social_norm_bias",
    "statistical_gaps", "statistical_gaps_by_group", "task_relevant_words", "undersample",
]
