"""Gender in word embeddings and in texts: the gender direction and g(w) (:mod:`.direction`), the
genderedness of queries, documents and ranked lists (:mod:`.genderedness`), debiased embeddings
(:mod:`.debias`), documents' intrinsic gender and direct stereotypes (:mod:`.stereotype`), and the
papers' word lists (:mod:`.wordlists`)."""
from .direction import DEFINITIONAL_PAIRS, GenderDirection, gender_direction, genderedness_of_rows
from .genderedness import GenderednessModel, list_genderedness, rank_weights, tied_rank_weights

__all__ = [
    "DEFINITIONAL_PAIRS", "GenderDirection", "GenderednessModel", "gender_direction", "genderedness_of_rows",
    "list_genderedness", "rank_weights", "tied_rank_weights",
]
