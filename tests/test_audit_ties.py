"""Tied scores: counted by hand on a tiny run file, and the audit says so in one note (with per-run counts)."""
import dataclasses

from irfair.audit import audit
from irfair.audit.alerts import Evidence, ties
from irfair.audit.ties import tie_report
from irfair.presentation.summary import format_table
from irfair.trec import read_run

# q1: d1 and d2 tie, listed d1 first; trec_eval's rule (doc id descending) puts d2 first → reordered.
# q2: no tie.  q3: d5 and d4 tie and are already listed d5, d4 → tie, order kept.
RUN = """1 Q0 d1 1 2.0 t
1 Q0 d2 2 2.0 t
1 Q0 d3 3 1.0 t
2 Q0 d4 1 3.0 t
2 Q0 d1 2 1.0 t
3 Q0 d5 1 1.5 t
3 Q0 d4 2 1.5 t
"""


def test_tie_report_by_hand(tmp_path):
    path = tmp_path / "tied.run"
    path.write_text(RUN)
    run = read_run(path)
    assert run.doc_ids("1") == ["d2", "d1", "d3"]
    report = tie_report(run, {"1": 1, "2": 2, "3": 2})
    assert (report.queries_with_ties, report.tied_documents, report.queries_reordered, report.queries_reordered_in_depth) == (2, 4, 1, 1)
    # within depth 3 both tied documents are listed, but in another order than the file's
    assert tie_report(run, {"1": 3}).queries_reordered_in_depth == 1
    # a run not read from a file has no order of its own to compare with: no note
    run.line_of = {}
    unordered = tie_report(run, {"1": 1})
    assert unordered.queries_reordered == 0
    assert ties(Evidence({}, {}, 0, None, 1, 0, [unordered])) is None


def test_one_note_for_every_run_with_reordered_ties():
    from irfair.audit.ties import TieReport

    reports = [TieReport("a", 2, 4, 1, 1), TieReport("b", 3, 6, 0, 0), TieReport("c", 5, 10, 4, 2)]
    note = ties(Evidence({}, {}, 0, None, 3, 0, reports))
    assert (note.kind, note.level) == ("ties", "note")
    # queries counted on both sides: 1 + 4 reordered, 1 + 2 of them within the depth (was: 1 run "in depth")
    assert note.message == ("2 runs have ties, ranked by document id as trec_eval does (5 queries reordered; 3 within the "
                            "audited depth)")
    assert note.to_dict()["runs"] == [reports[0].to_dict(), reports[2].to_dict()]


def test_audit_warns_about_reordered_ties(tmp_path, hand):
    path = tmp_path / "tied.run"
    path.write_text(RUN)
    docs = {f"d{i}": text for i, text in enumerate(["", "woman nurse she", "man doctor he", "girl", "boy he", "nurse she"])}
    del docs["d0"]
    topics = {"1": "doctor", "2": "nurse", "3": "table"}
    qrels = {"1": {"d1": 1}, "2": {"d4": 1, "d1": 1}, "3": {"d5": 1, "d4": 1}}
    result = audit([path], qrels, topics, docs, hand, n_bootstrap=0, cache_dir=False)
    note = next(w for w in result.warnings if w.kind == "ties")
    assert note.details["runs"] == [tie_report(read_run(path), {"1": 1, "2": 2, "3": 2}).to_dict()]
    assert result.ties[0]["queries_reordered"] == 1
    assert ("note: ties: 1 run has ties, ranked by document id as trec_eval does (1 query reordered; 1 within the audited depth)"
            in format_table(result))


def test_equal_scores_of_two_queries_are_no_tie(tmp_path):
    """Query 1's last score equals query 2's first (neighbours in the run's arrays): no tie; query 2's c and d tie. The
    same counts as for the run in a dict."""
    path = tmp_path / "r.run"
    path.write_text("1 Q0 a 1 2.0 t\n2 Q0 b 1 2.0 t\n2 Q0 c 2 1.0 t\n2 Q0 d 3 1.0 t\n")
    run = read_run(path)
    report = tie_report(run, {"1": 1, "2": 3})
    assert (report.queries_with_ties, report.tied_documents) == (1, 2)
    as_dict = tie_report(dataclasses.replace(run, ranking=dict(run.ranking)), {"1": 1, "2": 3})
    assert (as_dict.queries_with_ties, as_dict.tied_documents) == (1, 2)


def test_a_run_with_one_score_per_query_is_warned():
    """A run whose every query lists its documents with one score is ordered by document id alone: a warning, not
    only the ties note; a run with some distinct scores is not."""
    from irfair.audit.alerts import tied_runs
    from irfair.trec import Run

    flat = tie_report(Run("flat", {"1": [("d1", 1.0), ("d2", 1.0)], "2": [("d3", 0.5), ("d4", 0.5), ("d5", 0.5)]}), {})
    ranked = tie_report(Run("ranked", {"1": [("d1", 2.0), ("d2", 1.0)], "2": [("d3", 0.5), ("d4", 0.5)]}), {})
    assert (flat.all_tied, ranked.all_tied) == (True, False)
    warning = tied_runs(Evidence({}, {}, 0, None, 2, 0, [flat, ranked]))
    assert warning.kind == "tied_runs" and warning.message.startswith("flat gives every document of a query one score")
    assert tied_runs(Evidence({}, {}, 0, None, 1, 0, [ranked])) is None
