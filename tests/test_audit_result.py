"""Relative GSR only against a clearly positive perfect run; one naming for table() and JSON."""
import math

import pandas as pd
import pytest

from irfair.audit.result import SUMMARY_COLUMNS, AuditResult, SystemAudit, relative_gsr_note, relative_gsr_pct
from irfair.gender.direction import GenderDirection
from irfair.measures.gsr import GSRResult, PairedGSRTest


def _gsr(slope, low, high, name="perfect"):
    return GSRResult(name, slope, 0.1, 0.5, 0.01, low, high, 10, 2, {"no relevant documents": 2}, pd.DataFrame())


def test_relative_gsr_only_when_the_perfect_run_is_clearly_positive():
    # Robust04-like perfect run: GSR 0.085 with CI [0.04, 0.13]; a system at 0.1275 is 50% above it
    perfect = _gsr(0.085, 0.04, 0.13)
    assert relative_gsr_note(perfect) is None
    assert relative_gsr_pct(0.1275, perfect) == pytest.approx(50.0)
    assert relative_gsr_pct(0.0425, perfect) == pytest.approx(-50.0)
    # Vaswani-like: 0.046 with CI [-0.008, 0.108] covers 0 → n/a, and the note says so
    vaswani = _gsr(0.046, -0.008, 0.108)
    assert math.isnan(relative_gsr_pct(0.107, vaswani))
    assert relative_gsr_note(vaswani) == ("relative GSR is n/a: the perfect run's GSR (+0.0460) has a 95% CI "
                                          "[-0.0080, +0.1080] that covers 0")
    # TIME-like: negative perfect GSR (the ratio would flip sign: +0.105 → -12.42 before)
    time = _gsr(-0.0091, -0.09, 0.06)
    assert math.isnan(relative_gsr_pct(0.105, time))
    assert relative_gsr_note(time) == "relative GSR is n/a: the perfect run's GSR (-0.0091) is not positive"
    assert relative_gsr_note(_gsr(0.2, float("nan"), float("nan"))).endswith("has no 95% CI to show it differs from 0")
    assert relative_gsr_note(_gsr(1e-17, 1e-18, 2e-17)) == "relative GSR is n/a: the perfect run's GSR is 0"


def test_table_and_json_share_one_naming():
    perfect = SystemAudit("perfect", "perfect", _gsr(0.085, 0.04, 0.13), 0.0, None, None)
    system = SystemAudit("bm25", "system", _gsr(0.1275, 0.05, 0.2, "bm25"), 50.0,
                         PairedGSRTest(0.0425, -0.01, 0.09, 0.21, 10), None, "bm25.run", delta_gsr_p_adjusted=0.42)
    direction = GenderDirection(None, 0.6, (("she", "he"),), (), "emb")
    result = AuditResult({"perfect": perfect, "bm25": system}, "emb", direction, "auto", "title", measures=())
    table = result.table()
    assert tuple(table.columns) == SUMMARY_COLUMNS
    assert table.loc["bm25", "delta_gsr"] == 0.0425 and table.loc["bm25", "delta_gsr_p"] == 0.21
    assert table.loc["bm25", "delta_gsr_p_adjusted"] == 0.42
    assert table.loc["perfect", "delta_gsr"] == 0.0 and math.isnan(table.loc["perfect", "delta_gsr_p"])
    as_json = result.to_dict()["systems"]["bm25"]
    assert set(SUMMARY_COLUMNS) <= set(as_json)
    for column in SUMMARY_COLUMNS:
        assert as_json[column] == table.loc["bm25", column]


def test_tables_are_computed_once_until_a_field_is_set_and_a_copy_starts_afresh():
    import copy

    from test_study_tables import AUDITS  # hand-made audits (perfect, random, w2v_add, w2v_add_hard)

    result = copy.deepcopy(AUDITS["w2v-gnews-26k"])
    first = result.table()
    first.loc["w2v_add", "MAP"] = -1.0  # a caller's change stays its own
    assert result.table().loc["w2v_add", "MAP"] == pytest.approx(0.4) and "_views" in result.__dict__
    result.measures = ("MAP",)  # setting a field forgets the kept tables
    assert "_views" not in result.__dict__ and "nDCG@100" not in result.table().columns
    copied = copy.deepcopy(result)
    assert "_views" not in copied.__dict__ and copied.table().equals(result.table())
