"""Direct stereotypes (Fabris et al., Section 4.2.5) and the intrinsic validation of genderedness (Fig. 1).

A document's intrinsic gender comes from counting mentions of gendered entities (Appendix B words such as
he, wife, chairman) and first names (shipped lists): male when male mentions outnumber female ones,
female in the opposite case, neutral when they are equal (none included). For a ranked list,
m(q) and f(q) count its male and female documents and gap(q) = (m(q) + 1) / (f(q) + 1): the add-one
keeps the ratio defined when a list has no female (or male) document — such queries are counted — and
gives 1 for a balanced list. Δgap(q) = gap_system(q) − gap_perfect(q).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..corpus.termstore import TermStore
from ..embeddings import Embeddings
from .direction import GenderDirection
from .wordlists import VALIDATION_SETS, first_names, gendered_entities


def document_gender(store: TermStore, doc_ids: Sequence[str], use_names: bool = True) -> pd.DataFrame:
    """Male and female mention counts and the intrinsic gender (male/female/neutral) per document."""
    words = gendered_entities()
    names = first_names() if use_names else {"male": frozenset(), "female": frozenset()}
    male_terms = [store.term_id[t] for t in words["male"] | names["male"] if t in store.term_id]
    female_terms = [store.term_id[t] for t in words["female"] | names["female"] if t in store.term_id]
    rows = store.doc_rows(doc_ids)
    matrix = store.row_counts(rows)
    male = np.asarray(matrix[:, male_terms].sum(axis=1)).ravel() if male_terms else np.zeros(len(rows))
    female = np.asarray(matrix[:, female_terms].sum(axis=1)).ravel() if female_terms else np.zeros(len(rows))
    gender = np.where(male > female, "male", np.where(female > male, "female", "neutral"))
    return pd.DataFrame({"male_mentions": male, "female_mentions": female, "gender": gender}, index=pd.Index(doc_ids, name="doc_id"))


def list_gaps(lists: Mapping[str, Sequence[str]], doc_gender: pd.DataFrame) -> pd.DataFrame:
    """Per query: m(q), f(q) and gap(q) = (m + 1)/(f + 1) over the documents of its list."""
    rows = []
    for qid, docs in lists.items():
        genders = doc_gender.loc[list(docs), "gender"] if docs else pd.Series(dtype=str)
        m, f = int((genders == "male").sum()), int((genders == "female").sum())
        rows.append({"qid": qid, "m": m, "f": f, "gap": (m + 1) / (f + 1), "no_female_doc": f == 0})
    return pd.DataFrame(rows).set_index("qid") if rows else pd.DataFrame(columns=["m", "f", "gap", "no_female_doc"])


def favour_shares(gaps: pd.DataFrame, query_genderedness: pd.Series, bins: Sequence[float]) -> pd.DataFrame:
    """Share of queries whose list has more male (m > f), more female (f > m) or equally many documents,
    per bin of g(q)."""
    frame = gaps.join(query_genderedness.rename("g"), how="inner").dropna(subset=["g"])
    frame["bin"] = pd.cut(frame["g"], bins=bins, include_lowest=True)
    frame["favours"] = np.where(frame["m"] > frame["f"], "male", np.where(frame["f"] > frame["m"], "female", "balanced"))
    table = pd.crosstab(frame["bin"], frame["favours"], normalize="index")
    return table.reindex(columns=["male", "balanced", "female"], fill_value=0.0)


def permutation_test(female_scores: np.ndarray, male_scores: np.ndarray, n_permutations: int = 10_000, seed: int = 0) -> float:
    """One-tailed p-value of mean(female) − mean(male) > 0 under random relabelling."""
    rng = np.random.default_rng(seed)
    pooled = np.concatenate([female_scores, male_scores])
    observed = female_scores.mean() - male_scores.mean()
    n = len(female_scores)
    orders = (rng.permutation(len(pooled)) for _ in range(n_permutations))
    permuted = np.array([pooled[p[:n]].mean() - pooled[p[n:]].mean() for p in orders])
    return float((1 + np.sum(permuted >= observed - 1e-15)) / (n_permutations + 1))


def intrinsic_validation(embeddings: Embeddings, direction: GenderDirection, n_permutations: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """Mean g(w) of each expected-female and expected-male word set (Fig. 1 of the paper), words out of
    vocabulary skipped and counted, with the one-tailed permutation p-value of female > male."""
    rows = []
    for name, female_words, male_words in VALIDATION_SETS:
        f = direction.word_genderedness(embeddings, female_words)
        m = direction.word_genderedness(embeddings, male_words)
        f, m = f[~np.isnan(f)], m[~np.isnan(m)]
        p = permutation_test(f, m, n_permutations, seed) if len(f) and len(m) else float("nan")
        rows.append({"comparison": name, "mean g (female set)": f.mean() if len(f) else np.nan,
                     "mean g (male set)": m.mean() if len(m) else np.nan, "p (one-tailed)": p,
                     "words used": f"{len(f)}/{len(female_words)} + {len(m)}/{len(male_words)}"})
    return pd.DataFrame(rows).set_index("comparison")
