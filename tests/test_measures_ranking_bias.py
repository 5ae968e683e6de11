"""The bias-measure declarations' batch helpers: tie groups from grades, tie means, lists without a gendered word."""
import numpy as np

from irfair.measures.ranking_bias import RAB, RankedDocs, tie_groups


def test_tie_groups_and_tie_means_by_hand():
    """Grades 2, 1, 1 (then padding): groups 0, 1, 1. Values 1, 2, 4 → 1, (2 + 4)/2 = 3, 3; padding stays 0.
    Second list: grades 1, 1, 1, values 0, 0, 6 → 2, 2, 2."""
    mask = np.array([[True, True, True, False], [True, True, True, False]])
    grades = np.array([[2, 1, 1, 0], [1, 1, 1, 0]])
    ties = tie_groups(grades, mask)
    assert ties.tolist() == [[0, 1, 1, 0], [0, 0, 0, 0]]
    zeros = np.zeros(mask.shape)
    docs = RankedDocs(zeros, zeros, zeros, mask, ties)
    values = np.array([[1.0, 2, 4, 9], [0, 0, 6, 9]])
    assert docs.tie_mean(values).tolist() == [[1, 3, 3, 0], [2, 2, 2, 0]]
    assert RankedDocs(zeros, zeros, zeros, mask).tie_mean(values).tolist() == [[1, 2, 4, 0], [0, 0, 6, 0]]


def test_lists_without_a_gendered_word():
    """List 1: a male word at rank 3 — ungendered at @2, not at @3. List 2: empty (undefined, not ungendered).
    List 3: tied ranks 1–2, the gendered document second: the tie's mean puts it in the top 1."""
    female = np.array([[0.0, 0, 0], [0, 0, 0], [0, 0, 0]])
    male = np.array([[0.0, 0, 1], [0, 0, 0], [0, 2, 0]])
    mask = np.array([[True, True, True], [False, False, False], [True, True, False]])
    ties = np.array([[0, 1, 2], [0, 0, 0], [0, 0, 0]])
    docs = RankedDocs(female, male, np.ones(mask.shape), mask, ties)
    assert docs.no_gendered_word(2).tolist() == [True, False, False]
    assert docs.no_gendered_word(3).tolist() == [False, False, False]
    values = RAB.per_query(RAB, docs)
    # list 3: magnitudes (0, 2) tied → 1 at each rank: RaB_tc@5 = RaB_2 = 1, RaB_bool = 1/2; list 2: undefined
    assert values["rab_tc@5"][2] == 1 and values["rab_bool@5"][2] == 0.5 and np.isnan(values["rab_tc@5"][1])
    assert values["rab_tc@5"][0] == 1 / 3
