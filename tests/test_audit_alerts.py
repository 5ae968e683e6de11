"""Warnings as data: each kind decided from counts worked out by hand, and fired by real audits — three judged
queries, runs judged with another collection's qrels, two systems (no agreement rows)."""
import pytest

from irfair.audit import audit
from irfair.audit.alerts import (
    Evidence,
    background_coverage,
    detect,
    few_permutations,
    few_queries,
    few_resamples,
    few_systems,
    qrels_mismatch,
)
from irfair.trec import Topic

DOCS = {"d1": "the woman is a nurse and she", "d2": "the man is a doctor and he", "d3": "she is a girl", "d4": "he is a boy",
        "d5": "table nurse doctor", "d6": "the girl and the boy"}
TOPICS = {"6": Topic("6", "woman nurse"), "7": Topic("7", "man doctor"), "8": Topic("8", "girl table")}
QRELS = {"6": {"d1": 1}, "7": {"d2": 1}, "8": {"d6": 1}}


def evidence(**changes) -> Evidence:
    base = {"gsr_queries": {"perfect": 93, "bm25": 93}, "judged_share": {"bm25": 0.6}, "qrels_documents": 2000,
            "qrels_documents_missing": 0, "n_systems": 10, "agreement_measures": 7}
    return Evidence(**(base | changes))


def test_nothing_fires_on_a_sound_audit():
    assert detect(evidence()) == []
    # the thresholds themselves: 20 queries, 1% judged, half the judged documents, 5 systems
    assert detect(evidence(gsr_queries={"perfect": 20}, judged_share={"a": 0.01, "b": 0.0}, qrels_documents_missing=1000,
                           n_systems=5)) == []


def test_each_kind_by_hand():
    few = few_queries(evidence(gsr_queries={"perfect": 3, "bm25": 2, "qlm": 40}))
    assert (few.kind, few.level) == ("few_queries", "warning")
    assert few.details == {"min_queries": 20, "systems": {"perfect": 3, "bm25": 2}}
    assert few.message == "GSR of 2 of 3 runs uses fewer than 20 queries (as few as 2): CIs and p-values are unreliable"
    # every audited system below 1% judged, or more than half of the judged documents not in the corpus
    judged = qrels_mismatch(evidence(judged_share={"a": 0.0003, "b": 0.009}))
    assert judged.kind == "qrels_mismatch" and "at most 0.9% of each system's top 10 is judged" in judged.message
    assert qrels_mismatch(evidence(judged_share={"a": 0.0003, "b": 0.2})) is None  # one system is judged
    absent = qrels_mismatch(evidence(qrels_documents_missing=1001))
    assert "1001 of the 2000 judged documents are not in the corpus" in absent.message
    assert absent.to_dict()["qrels_documents_missing"] == 1001
    assert qrels_mismatch(evidence(qrels_documents_missing=None)) is None  # not checked
    note = few_systems(evidence(n_systems=2))
    assert (note.kind, note.level, note.details) == ("few_systems", "note", {"n_systems": 2, "min_systems": 5})
    assert few_systems(evidence(n_systems=2, agreement_measures=1)) is None  # nothing to agree on
    assert [w.kind for w in detect(evidence(gsr_queries={"perfect": 3}, judged_share={"a": 0.0}, n_systems=2))] == [
        "few_queries", "qrels_mismatch", "few_systems"]
    assert few.line() == "warning: few_queries: " + few.message
    assert list(few.to_dict()) == ["kind", "level", "message", "min_queries", "systems"]


def test_few_permutations_by_hand():
    """B permutations: smallest p = 1/(B + 1); Holm over m tests: m/(B + 1). Two systems (1 pair, 2 against the
    perfect run), alpha 0.05: 39 permutations give 2/40 = 0.05, not below alpha; 40 give 2/41 < 0.05. BH's and
    none's floor is 1/(B + 1) whatever m: 19 permutations give 0.05, 20 give 1/21."""
    families = {"the pairs of each measure": 1, "the systems against the perfect run": 2}
    holm = few_permutations(evidence(n_permutations=5, correction="holm", families=families))
    assert holm.message == ("5 permutations leave no p_adjusted below alpha 0.05 (holm; smallest possible: the pairs of each "
                            "measure (1 test): 0.167; the systems against the perfect run (2 tests): 0.333): no difference there "
                            "can be significant; --permutations 40 or more can")
    assert holm.details == {"n_permutations": 5, "permutations_needed": 40,
                            "smallest_p_adjusted": {"the pairs of each measure": 1 / 6, "the systems against the perfect run": 2 / 6}}
    assert few_permutations(evidence(n_permutations=39, correction="holm", families=families)).details["smallest_p_adjusted"] == {
        "the systems against the perfect run": 2 / 40}
    assert few_permutations(evidence(n_permutations=40, correction="bonferroni", families=families)) is None
    assert few_permutations(evidence(n_permutations=19, correction="bh", families=families)).details["permutations_needed"] == 20
    assert few_permutations(evidence(n_permutations=20, correction="bh", families=families)) is None
    assert few_permutations(evidence(n_permutations=0, correction="holm", families=families)) is None  # no tests asked for
    assert few_permutations(evidence(n_permutations=5, correction="holm", families={"the pairs of each measure": 0})) is None


def test_few_resamples_and_background_coverage_by_hand():
    """A 95% percentile CI has 0.025 B resamples in each tail: 40 is the fewest with one, 39 warns (0 asks for no
    CI). A background run holding 2 of the 3 audited queries leaves NFaiRR undefined on the third."""
    assert few_resamples(evidence(n_bootstrap=39)).message == (
        "95% CIs from 39 bootstrap resamples: each 2.5% tail holds less than one resample, so a CI is the range of those "
        "drawn; --bootstrap 40 or more (1000 by default)")
    assert few_resamples(evidence(n_bootstrap=40)) is None and few_resamples(evidence(n_bootstrap=0)) is None
    partial = background_coverage(evidence(background="bg", background_queries=2, audited_queries=3))
    assert partial.message == "the NFaiRR background run bg holds 2 of the 3 audited queries: NFaiRR is undefined on the other 1"
    assert partial.details == {"background": "bg", "queries_held": 2, "queries_audited": 3}
    assert background_coverage(evidence(background="bg", background_queries=3, audited_queries=3)) is None
    assert background_coverage(evidence()) is None


def test_three_judged_queries_and_two_systems(hand):
    runs = {"a": {"6": ["d1", "d5"], "7": ["d2", "d4"], "8": ["d6", "d3"]}, "b": {"6": ["d5", "d1"], "7": ["d4", "d2"], "8": ["d3", "d6"]}}
    result = audit(runs, QRELS, TOPICS, DOCS, hand, n_bootstrap=50, n_permutations=99, cache_dir=False)
    kinds = {w.kind: w for w in result.warnings}
    assert set(kinds) == {"few_queries", "few_systems"}
    assert kinds["few_queries"].details["systems"] == {"perfect": 3, "random": 3, "a": 3, "b": 3}
    assert result.agreement().empty and result.to_dict()["agreement"] == []
    # p-values are still computed (the warning says what they are worth), GSR and MAP over the 3 queries
    compared = result.comparisons.set_index("measure")
    assert compared.loc[["gsr", "MAP"], "n_queries"].tolist() == [3, 3] and compared["p"].notna().all()


def test_runs_judged_with_other_qrels(hand):
    """Every query of the run is judged, but never one of its documents: d5 and d3 are judged for no query."""
    qrels = {"6": {"d1": 1}, "7": {"d2": 1}, "8": {"d6": 1, "d4": 0}}
    runs = {"a": {"6": ["d5", "d3"], "7": ["d5", "d3"], "8": ["d5", "d3"]}}
    result = audit(runs, qrels, TOPICS, DOCS, hand, n_bootstrap=0, n_permutations=0, cache_dir=False)
    mismatch = next(w for w in result.warnings if w.kind == "qrels_mismatch")
    assert mismatch.details["judged_share_at_10"] == {"a": 0.0}
    # 4 judged documents, all in the corpus (the whole corpus is stored for the random run)
    assert (mismatch.details["qrels_documents"], mismatch.details["qrels_documents_missing"]) == (4, 0)
    judged = audit({"a": {"6": ["d1", "d3"], "7": ["d5", "d3"], "8": ["d5", "d3"]}}, qrels, TOPICS, DOCS, hand, n_bootstrap=0,
                   n_permutations=0, cache_dir=False)
    assert "qrels_mismatch" not in {w.kind for w in judged.warnings}  # 1 of 6 judged


@pytest.mark.parametrize("random_baseline", [True, False])
def test_judged_documents_missing_from_the_corpus(hand, random_baseline):
    """Judged non-relevant documents that the corpus lacks are counted when the whole corpus is stored."""
    qrels = {"6": {"d1": 1, "x1": 0, "x2": 0}, "7": {"d2": 1, "x3": 0, "x4": 0}, "8": {"d6": 1}}
    runs = {"a": {"6": ["d1"], "7": ["d2"], "8": ["d6"]}}
    result = audit(runs, qrels, TOPICS, DOCS, hand, n_bootstrap=0, n_permutations=0, cache_dir=False, random_baseline=random_baseline)
    mismatch = [w for w in result.warnings if w.kind == "qrels_mismatch"]
    if random_baseline:  # 4 of the 7 judged documents are not in the corpus: more than half
        assert mismatch[0].details["qrels_documents_missing"] == 4
        assert "4 of the 7 judged documents are not in the corpus" in mismatch[0].message
    else:  # only the documents the audit reads are looked up: not checked
        assert mismatch == []


def test_pairs_on_few_shared_queries_are_warned():
    """Two systems of 25 queries sharing 3: the pair's delta is over 3 queries (it can have the other sign than the
    table's difference); a pair sharing all of its 30 queries is not warned."""
    from irfair.audit.alerts import Evidence, few_shared_queries

    evidence = Evidence({}, {}, 0, None, 3, 0, shared_queries={("a", "b"): 3, ("a", "c"): 30},
                        own_queries={"a": 25, "b": 25, "c": 30})
    warning = few_shared_queries(evidence)
    assert warning.kind == "few_shared_queries" and warning.details == {"pairs": [{"a": "a", "b": "b", "n_queries": 3}]}
    assert "(as few as 3: a and b)" in warning.message
    assert few_shared_queries(Evidence({}, {}, 0, None, 2, 0, shared_queries={("a", "c"): 30}, own_queries={"a": 30, "c": 30})) is None
