"""What `irfair audit` prints: the verdict first within 100 columns (letters for significant differences, long
names cut), and the summary and comparisons as Markdown, LaTeX (booktabs, superscripts, a caption naming
the test) and TSV. Differences are set by hand on a real (tiny) audit so every mark can be predicted."""
import math

import pandas as pd
import pytest

from irfair.audit import audit
from irfair.audit.comparisons import COMPARISON_COLUMNS
from irfair.presentation.report import render
from irfair.presentation.verdict import higher_than, sentences
from irfair.trec import Topic

DOCS = {"d1": "the woman is a nurse and she", "d2": "the man is a doctor and he", "d3": "she is a girl", "d4": "he is a boy",
        "d5": "table nurse doctor", "d6": "the girl and the boy"}
TOPICS = {"6": Topic("6", "woman nurse"), "7": Topic("7", "man doctor"), "8": Topic("8", "girl table")}
QRELS = {"6": {"d1": 1}, "7": {"d2": 1}, "8": {"d6": 1}}
LONG = "a_system_name_far_longer_than_any_column_should_be"


@pytest.fixture(scope="module")
def result():
    from helpers import hand_embeddings

    runs = {LONG: {"6": ["d1", "d5"], "7": ["d2", "d4"], "8": ["d6", "d3"]},
            "w2v_si": {"6": ["d5", "d1"], "7": ["d4", "d2"], "8": ["d3", "d6"]},
            "c": {"6": ["d3"], "7": ["d1"], "8": ["d2"]}}
    found = audit(runs, QRELS, TOPICS, DOCS, hand_embeddings(), n_bootstrap=50, n_permutations=99, cache_dir=False)
    # set by hand: LONG has higher MAP than w2v_si and c; c has higher GSR than w2v_si (delta of w2v_si − c < 0)
    rows = [(LONG, "w2v_si", "gsr", 0.9, 0.3), (LONG, "c", "gsr", 1.2, 0.4), ("w2v_si", "c", "gsr", -0.3, 0.01),
            (LONG, "w2v_si", "MAP", 0.5, 0.01), (LONG, "c", "MAP", 1.0, 0.02), ("w2v_si", "c", "MAP", 0.5, 0.2)]
    found.comparisons = pd.DataFrame([{"a": a, "b": b, "measure": m, "test": "paired randomization", "delta": d, "ci95_low": d - 0.1,
                                       "ci95_high": d + 0.1, "p": p / 3, "p_adjusted": p, "n_queries": 3, "p_se": 0.0,
                                       "n_permutations": 99, "decision": "differs" if p < 0.05 else "does not differ"}
                                      for a, b, m, d, p in rows],
                                     columns=list(COMPARISON_COLUMNS))
    return found


def test_letters_mark_what_each_system_is_significantly_higher_than(result):
    assert result.letters == {LONG: "a", "w2v_si": "b", "c": "c"}
    assert higher_than(result, "gsr") == {LONG: "", "w2v_si": "", "c": "b"}
    assert higher_than(result, "MAP") == {LONG: "bc", "w2v_si": "", "c": ""}


def test_the_verdict_fits_100_columns(result):
    lines = render(result, "table").splitlines()
    assert max(map(len, lines)) <= 100
    assert lines[0] == "irfair audit: 3 systems, 3 queries, hand, depth auto, holm correction, alpha 0.05"
    assert lines[2] == "GSR between systems: 1 of 3 pairs differ: c > w2v_si (+0.3000, p_adjusted 0.010)"
    assert lines[3] == "effectiveness, pairs differing (of 3): MAP 2"  # the measures compared (here set by hand)
    assert any(line.startswith("warning: few_queries: GSR of 5 of 5 runs uses fewer than 20 queries") for line in lines)
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["system", "gsr"])
    rows = {line[:2].strip(): line for line in lines[header + 2:header + 7]}
    # the long name is cut (ending in ~) so that the row fits; letters after the values they mark; with 3 queries no
    # slope can be excluded at 95% (2 of the 8 sign patterns always count): the GSR CIs are n/a
    assert all(rows[letter].split()[3] == "n/a" for letter in "abc")
    assert rows["a"].split()[1].endswith("~") and rows["a"].split()[-1] == "bc" and rows["c"].split()[4] == "b"
    wide = render(result, "table", wide=True).splitlines()
    assert any(LONG in line for line in wide) and max(map(len, wide)) > 100


def test_markdown(result):
    text = render(result, "markdown")
    lines = text.splitlines()
    assert lines[0] == "|  | system | gsr | gsr_ci95 | delta_gsr | MAP | nDCG@100 | P@10 |"
    assert lines[1] == "|---|---|--:|---|--:|--:|--:|--:|"
    assert lines[4].startswith(f"| a | {LONG} | +1.0055 | n/a |") and "| 1.0000<sup>bc</sup> |" in lines[4]
    assert lines[6].startswith("| c | c | -0.2263<sup>b</sup> |")
    caption = lines[8]
    assert ("two-sided paired randomization tests (all 2^n sign flips where they number at most 99, else 99 random ones), "
            "Holm correction over the 3 pairs of each measure") in caption
    assert ("α = 0.05, seed 0; CIs of means from 50 bootstrap resamples of the queries, of GSR and of differences by "
            "inverting the tests") in caption
    assert lines[-1] == "| w2v_si | c | -0.3000 | [-0.4000, -0.2000] | 0.0033 | 0.0100 | 3 |"


def test_latex(result):
    text = render(result, "latex")
    lines = text.splitlines()
    assert lines[0] == "% irfair audit table: needs \\usepackage{booktabs} in the preamble"  # the package its rules need
    assert lines[1:3] == ["\\begin{table}[t]", "\\centering"] and lines[-3:] == ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
    assert "\\toprule" in lines and lines.count("\\midrule") == 2  # under the header, and between the reference rows and the systems
    caption = next(line for line in lines if line.startswith("\\caption{"))
    assert "$\\alpha = 0.05$" in caption and "99 random ones), Holm correction" in caption and "95\\% CI;" in caption
    assert caption.count("{") == caption.count("}")
    row = next(line for line in lines if line.startswith("a & "))
    assert "a\\_system\\_name" in row and "1.0000\\textsuperscript{bc}" in row and row.endswith(" \\\\")
    assert next(line for line in lines if line.startswith("c & ")).startswith("c & c & $-$0.2263\\textsuperscript{b} & n/a & $-$1.2318")
    assert "& -- &" in next(line for line in lines if line.startswith(" & perfect"))


def test_wide_latex_spans_the_page_with_each_measures_ci(result):
    """``--wide --format latex`` (``result.to_latex(wide=True)``): a ``table*`` whose every measure has its CI beside it,
    the interval of ``table()``; the narrow table is unchanged by the option's existence."""
    text = result.to_latex(wide=True)
    lines = text.splitlines()
    assert lines[1] == "\\begin{table*}[t]" and lines[-1] == "\\end{table*}"
    assert next(line for line in lines if line.startswith(" & System")).count("95\\% CI") == 1 + len(result.measures)
    row = next(line for line in lines if line.startswith("a & "))
    low, high = result.table().loc[LONG, ["MAP_ci_low", "MAP_ci_high"]]
    assert f"1.0000\\textsuperscript{{bc}} & [+{low:.4f}, +{high:.4f}]" in row
    assert result.to_latex() == render(result, "latex") and result.to_markdown() == render(result, "markdown")
    assert result.to_text() == render(result, "table") and "<table id=\"verdict-table\">" in result._repr_html_()


def test_tsv_holds_the_summary_then_every_comparison(result):
    summary, comparisons = render(result, "tsv").split("\n\n")
    assert summary.splitlines()[0].split("\t")[:3] == ["system", "kind", "gsr"] and len(summary.splitlines()) == 6
    rows = [line.split("\t") for line in comparisons.splitlines()]
    assert rows[0] == list(COMPARISON_COLUMNS) and len(rows) == 7
    assert rows[3][:3] == ["w2v_si", "c", "gsr"] and float(rows[3][4]) == -0.3


def test_sentences_without_permutations_or_systems(result):
    from irfair.audit.comparisons import Inference

    result = __import__("copy").copy(result)
    result.inference = Inference(n_permutations=0)
    assert sentences(result)[1] == "GSR against the perfect run: not tested (--permutations 0)"
    assert math.isnan(result.perfect.delta_gsr_p_adjusted)


def test_the_command_line_offers_what_the_library_does():
    """cli.options names the formats and corrections without importing the audit (numpy, pandas): keep them equal."""
    from irfair.cli.options import AUDIT_FORMATS, CORRECTIONS
    from irfair.measures.resampling import CORRECTIONS as LIBRARY_CORRECTIONS
    from irfair.presentation.report import FORMATS

    assert AUDIT_FORMATS == FORMATS and CORRECTIONS == LIBRARY_CORRECTIONS


def test_counts_against_a_baseline_say_which_way(result):
    """With --baseline c the pairs are (system, c): LONG's MAP is significantly above c's (delta +1.0, p 0.02),
    w2v_si's does not differ (p 0.2): 'MAP 1 above/0 below', on a line that names the baseline."""
    import copy

    from irfair.audit.comparisons import Inference
    from irfair.presentation.verdict import sentences

    against = copy.copy(result)
    against.inference = Inference(n_bootstrap=50, n_permutations=99, baseline="c")
    against.comparisons = result.comparisons[result.comparisons["b"] == "c"]
    line = next(s for s in sentences(against) if s.startswith("effectiveness"))
    assert line == "effectiveness, against c (of 2 systems): MAP 1 above/0 below"


def test_the_baseline_view_counts_wins_ties_losses_worked_out_by_hand():
    """A real audit with --baseline c. Per query (6, 7, 8) AP: the long-named system 1, 1, 1 (its relevant document
    first), w2v_si 0.5, 0.5, 0.5 (second), c 0, 0, 0 (not retrieved): both win on all 3 queries, tie and lose on none;
    GSR has no W/T/L. 3 queries cannot reach p < 0.05 (smallest exact p 2/8), so nothing is marked."""
    from helpers import hand_embeddings

    from irfair.presentation.baseline_view import against_baseline

    runs = {LONG: {"6": ["d1", "d5"], "7": ["d2", "d4"], "8": ["d6", "d3"]},
            "w2v_si": {"6": ["d5", "d1"], "7": ["d4", "d2"], "8": ["d3", "d6"]},
            "c": {"6": ["d3"], "7": ["d1"], "8": ["d2"]}}
    found = audit(runs, QRELS, TOPICS, DOCS, hand_embeddings(), n_bootstrap=50, n_permutations=99, cache_dir=False, baseline="c")
    view = against_baseline(found)
    ap = view[view["measure"] == "MAP"].set_index("system")
    assert ap.loc[LONG, ["value", "baseline_value", "delta"]].tolist() == pytest.approx([1.0, 0.0, 1.0])
    assert ap.loc["w2v_si", ["value", "delta"]].tolist() == pytest.approx([0.5, 0.5])
    assert [ap.loc[s, ["wins", "ties", "losses"]].tolist() for s in (LONG, "w2v_si")] == [[3, 0, 0], [3, 0, 0]]
    assert set(ap["decision"]) == {"cannot differ"} and set(ap["mark"]) == {""}
    assert view.loc[view["measure"] == "gsr", "wins"].isna().all()
    text = render(found)
    assert "against c: ▲/▼ significantly above/below it" in text
    assert any(line.split()[:4] == ["MAP", "c", "(baseline)", "0.0000"] for line in text.splitlines())
    assert max(len(line) for line in text.splitlines()) <= 100


def test_the_baseline_view_marks_and_daggers(result):
    """Hand-set comparisons against c: LONG's MAP is above c's (+1.0, differs): ▲ in the view, † beside its MAP in
    Markdown and $^\\dagger$ in LaTeX (with the caption saying so); w2v_si's (p 0.2) carries neither."""
    import copy

    from irfair.audit.comparisons import Inference
    from irfair.presentation.baseline_view import against_baseline

    against = copy.copy(result)
    against.inference = Inference(n_bootstrap=50, n_permutations=99, baseline="c")
    against.comparisons = result.comparisons[result.comparisons["b"] == "c"]
    view = against_baseline(against).set_index(["measure", "system"])
    assert view.loc[("MAP", LONG), "mark"] == "▲" and view.loc[("MAP", "w2v_si"), "mark"] == ""
    assert view.loc[("gsr", LONG), "mark"] == ""  # gsr p 0.4
    markdown = render(against, "markdown")
    lines = markdown.split("\n\n")[0].splitlines()  # the summary table
    column = [cell.strip() for cell in lines[0].split("|")].index("MAP")
    cells = {line.split("|")[2].strip(): line.split("|")[column].strip() for line in lines[2:]}
    assert cells[LONG].startswith("1.0000†") and "†" not in cells["w2v_si"]
    assert "Against c:" in markdown and "†: significantly different from c." in markdown
    latex = render(against, "latex")
    assert latex.startswith("% irfair audit table: needs \\usepackage{booktabs}")
    assert "$^\\dagger$" in latex and "significantly different from c." in latex
