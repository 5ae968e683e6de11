"""Values kept in the cache (kind ``values``, irfair.cache.arrays): read back exactly as computed, under a key that
names every input, computed again when an entry is damaged, and a re-audit of unchanged inputs computes none of
them again while it prints and writes the same bytes."""
from __future__ import annotations

import os
import platform
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from faults_data import make_time_inputs, run_cli

from irfair.audit import agreement, comparisons
from irfair.audit.comparisons import Inference, QueryValues, pairwise
from irfair.cache.arrays import arrays_memo, inputs_key
from irfair.cache.manage import scan
from irfair.corpus import InMemoryCorpus
from irfair.corpus.termstore import TermStore
from irfair.gender import gender_direction
from irfair.gender.genderedness import GenderednessModel
from irfair.measures.trec_judged import Judged
from irfair.presentation import beside, report

NAN = float("nan")


def test_the_key_names_every_input():
    """The label, each array's dtype, shape and bytes, and the settings each give another key; the same inputs the
    same key."""
    a = np.arange(6, dtype=np.int64)
    base = inputs_key("x", [a], (1, "holm"))
    assert base == inputs_key("x", [a.copy()], (1, "holm")) and len(base) == 32
    others = [inputs_key("y", [a], (1, "holm")), inputs_key("x", [a.astype(np.int32)], (1, "holm")),
              inputs_key("x", [a.reshape(2, 3)], (1, "holm")), inputs_key("x", [a + 1], (1, "holm")),
              inputs_key("x", [a], (2, "holm")), inputs_key("x", [a[:3], a[3:]], (1, "holm"))]
    assert len({base, *others}) == 7


@pytest.mark.skipif(platform.machine() != "x86_64", reason="OpenBLAS's x86-64 kernels are chosen here")
def test_the_key_names_the_kernels_numpys_blas_chose():
    """The same inputs under two OpenBLAS kernel sets (OPENBLAS_CORETYPE, as two CPUs of one architecture choose
    them) are two keys: a cache shared by two machines never gives one the other's last bits."""
    code = "import numpy as np; from irfair.cache.arrays import inputs_key; print(inputs_key('x', [np.arange(3)], 1))"
    keys = [subprocess.run([sys.executable, "-c", code], env={**os.environ, "OPENBLAS_CORETYPE": core}, check=True,
                           capture_output=True, text=True).stdout for core in ("Prescott", "Sandybridge", "Prescott")]
    assert keys[0] == keys[2] != keys[1] and len(keys[0].strip()) == 32


def _counting(memo, computed: list):
    def counting(name, inputs, settings, compute, shapes):
        return memo(name, inputs, settings, lambda: (computed.append(name), compute())[1], shapes)
    return counting


def _values() -> QueryValues:
    """Systems a, b, c on 7 queries, c without GSR anywhere (its pairs on GSR are not compared); MAP with ties."""
    x = np.array([-0.3, -0.1, 0.0, 0.2, 0.4, 0.5, 0.7])
    gsr = np.array([[-0.3, -0.1, 0.0, 0.2, 0.4, 0.5, 0.6], [0.3, 0.1, 0.0, -0.2, -0.4, -0.5, 0.1], [NAN] * 7])
    ap = np.array([[0.5, 0.4, 0.6, 0.5, 0.7, 0.3, 0.2], [0.1, 0.4, 0.1, 0.0, 0.2, 0.1, 0.2], [0.5, 0.4, 0.6, 0.5, 0.7, NAN, 0.9]])
    return QueryValues(tuple("1234567"), ("a", "b", "c"), x, {"gsr": gsr, "MAP": ap})


def test_comparisons_are_read_back_as_computed(tmp_path):
    """The comparisons read from the cache are the computed frame: every value, NaN and NA, and every dtype; another
    seed is another entry; an entry whose array was damaged is computed again."""
    inference = Inference(n_bootstrap=0, n_permutations=999, seed=1)
    plain = pairwise(_values(), ["a", "b", "c"], inference)
    assert plain["decision"].tolist()[1:3] == ["not compared"] * 2 and plain["wins"][:3].isna().all()
    computed: list[str] = []
    memo = _counting(arrays_memo(tmp_path), computed)
    for _ in range(2):
        kept = pairwise(_values(), ["a", "b", "c"], inference, memo)
        pd.testing.assert_frame_equal(kept, plain, check_exact=True)
        assert list(kept.dtypes) == list(plain.dtypes) and kept.to_csv() == plain.to_csv()
    assert computed == ["comparisons"]
    pairwise(_values(), ["a", "b", "c"], Inference(n_bootstrap=0, n_permutations=999, seed=2), memo)
    pairwise(_values(), ["a", "c"], inference, memo)
    assert computed == ["comparisons"] * 3
    for entry in (tmp_path / "values").glob("comparisons-*/0.npy"):
        np.save(entry, np.zeros((12, 1)))
    pd.testing.assert_frame_equal(pairwise(_values(), ["a", "b", "c"], inference, memo), plain, check_exact=True)
    assert computed == ["comparisons"] * 4


def test_the_agreement_is_read_back_as_computed(tmp_path):
    """The agreement table of test_audit_bias's hand example, read from the cache: every value (NaN included) and
    dtype as computed; other values are another entry."""
    from irfair.audit.agreement import agreement_table

    systems = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [1.0, 3, 2, 4], "c": [4.0, 3, np.nan, 1]}, index=list("wxyz"))
    per_query = pd.DataFrame({"a": [1.0, 2, 3, np.nan], "b": [1.0, 3, 2, 5]})
    plain = agreement_table(systems, per_query)
    assert plain["kendall_p"].iloc[0] == pytest.approx(1 / 3) and np.isnan(plain["pearson_r"].iloc[2])
    computed: list[str] = []
    memo = _counting(arrays_memo(tmp_path), computed)
    for _ in range(2):
        pd.testing.assert_frame_equal(agreement_table(systems, per_query, memo), plain, check_exact=True)
    per_query.loc[0, "b"] = 2.0
    assert agreement_table(systems, per_query, memo)["pearson_r"].iloc[0] != plain["pearson_r"].iloc[0]
    assert computed == ["agreement"] * 2


DOCS = {"d1": "The woman and the nurses saw a man.", "d2": "A nurse.", "d3": "", "d4": "She met the doctor at the table."}
LISTS = ([["d4", "d2", "d1", "d3"], ["d1", "d4"]], [["nurse"], ["woman", "table"]])


def test_document_genderedness_is_kept_by_the_store_content_and_the_lists(hand, tmp_path):
    """g_q(d) and C(d) of a published store's documents are computed once and read back bit for bit; other lists or
    queries are other entries; a store that is not a published entry (in memory) keeps nothing."""
    corpus = InMemoryCorpus(DOCS)
    store = TermStore.for_corpus(corpus, tmp_path / "stores")
    store.ensure(corpus, None, progress=False)
    assert store.content_id is not None
    direction = gender_direction(hand)
    plain = GenderednessModel(store, hand, direction)
    expected, counts = plain.lists_document_genderedness(*LISTS), plain.measurable_counts(["d1", "d2", "d3", "d4"])
    # d3 empty; C(d): woman, man; nurse; nothing; she, doctor, table (query terms are not taken out of C(d))
    assert np.isnan(expected[0][3]) and counts.tolist() == [2, 1, 0, 3]
    computed: list[str] = []
    memo = _counting(arrays_memo(tmp_path / "cache"), computed)
    for _ in range(2):
        model = GenderednessModel(store, hand, direction, memo)
        found = model.lists_document_genderedness(*LISTS)
        assert len(found) == 2 and all(np.array_equal(a, b, equal_nan=True) for a, b in zip(found, expected))
        assert np.array_equal(model.measurable_counts(["d1", "d2", "d3", "d4"]), counts)
    assert computed == ["genderedness", "measurable"]
    model.lists_document_genderedness([["d4", "d2", "d1", "d3"], ["d1", "d4"]], [["nurse"], ["woman"]])
    model.lists_document_genderedness([["d4", "d2", "d1"], ["d1", "d4"]], [["nurse"], ["woman", "table"]])
    assert computed == ["genderedness", "measurable", "genderedness", "genderedness"]
    in_memory = TermStore()
    in_memory.ensure(corpus, None, progress=False)
    found = GenderednessModel(in_memory, hand, direction, memo).lists_document_genderedness(*LISTS)
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(found, expected)) and len(computed) == 4


@pytest.fixture(scope="module")
def inputs(shared_data, glove, tmp_path_factory):
    return make_time_inputs(shared_data / "time", tmp_path_factory.mktemp("values-inputs"), glove)


@pytest.fixture(scope="module")
def runs(inputs) -> list[str]:
    """The four runs and a fifth, run B's first 40 documents: five systems, as many as the agreement of the bias
    measures needs."""
    fifth = inputs.runs[1].with_name("E.run")
    fifth.write_text("".join(line + "\n" for line in inputs.runs[1].read_text().splitlines() if int(line.split()[3]) <= 40))
    return [*map(str, inputs.runs), str(fifth)]


def _audit_args(inputs, runs: list[str], *extra) -> list[str]:
    """The audit of every run of ``runs`` (:meth:`TimeInputs.audit_args` takes one)."""
    args = inputs.audit_args(inputs.runs[0], *map(str, extra))
    at = args.index(str(inputs.runs[0]))
    return [*args[:at], *runs, *args[at + 1:]]


def test_a_re_audit_computes_no_kept_value_again_and_writes_the_same_bytes(inputs, runs, tmp_path, monkeypatch):
    """Five runs audited without a cache, then twice on one: the same printout and the same comparisons, per-query
    values, table and agreement, byte for byte; the second audit, with the comparisons, the document genderedness,
    the documents' counts, the runs' evaluation and the measures' agreement made impossible to compute, reads them
    all from the entries the first one left as they were."""
    def audit(out, *cache):
        code, printed, err = run_cli(_audit_args(inputs, runs, *cache, "--out", tmp_path / out))
        assert (code, err) == (0, "")
        return printed.replace(str(tmp_path / out), "OUT")

    monkeypatch.setenv("IRFAIR_JOBS", "2")
    forks = []

    def made_beside(make, jobs=None):
        forks.append(jobs)
        return beside.made_beside(make, jobs)
    monkeypatch.setattr(report, "made_beside", made_beside)
    cache = tmp_path / "cache"
    fresh = audit("fresh", "--no-cache")
    assert audit("cold", "--cache-dir", cache) == fresh
    def entries() -> dict[str, tuple[int, int]]:  # each entry's first array: its inode and time, as written
        return {r.path.name: ((r.path / "0.npy").stat().st_ino, (r.path / "0.npy").stat().st_mtime_ns)
                for r in scan(cache) if r.kind == "values"}
    kept = entries()
    assert {name.rsplit("-", 1)[0] for name in kept} == {"texfair", "comparisons", "genderedness", "measurable", "counts",
                                                         "evaluation", "agreement"}

    def impossible(*args, **kwargs):
        raise AssertionError("computed again")
    monkeypatch.setattr(comparisons, "_pairwise", impossible)
    monkeypatch.setattr(GenderednessModel, "_lists_values", impossible)
    monkeypatch.setattr(GenderednessModel, "_document_values", impossible)
    monkeypatch.setattr(TermStore, "term_sums", impossible)
    monkeypatch.setattr(Judged, "from_columns", impossible)  # each run's documents among the judgements
    monkeypatch.setattr(agreement, "_kendall", impossible)  # the agreement of the bias measures
    monkeypatch.setattr(agreement, "_pearson", impossible)
    assert audit("warm", "--cache-dir", cache) == fresh
    assert entries() == kept
    for name in ("comparisons.csv", "per_query.csv", "table.tsv", "agreement.csv"):
        assert (tmp_path / "cold" / name).read_bytes() == (tmp_path / "fresh" / name).read_bytes() \
            == (tmp_path / "warm" / name).read_bytes()

    def page(out: str) -> str:  # report.html without the time it was made and the folder named on the command line
        text = (tmp_path / out / "report.html").read_text(encoding="utf-8").replace(str(tmp_path / out), "OUT")
        return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "TIME", text)
    # the warm audit's page laid out by a forked child (every plot read from the cache: irfair.presentation.beside),
    # the fresh and the cold audit's here (their plots drawn now)
    assert page("warm") == page("cold") and forks == [1, 1, None]  # without a cache, with an empty one, with all plots


def test_a_runs_evaluation_is_read_back_as_computed(shared_data, tmp_path):
    """trec_eval 10's test run against its qrels, with -c and without: the values read back equal those computed;
    another relevance level, another grade or other measures are other entries; a run given in memory keeps
    nothing."""
    from irfair.measures.effectiveness import evaluate
    from irfair.measures.trec_judged import QrelsIndex
    from irfair.trec import Run, read_qrels, read_run

    folder = shared_data / "trec_eval"
    qrels = read_qrels(folder / "qrels.test")
    lines = (folder / "results.test").read_text().splitlines()
    lacking = lines[0].split()[0]  # its first query left out: -c evaluates one query more
    (tmp_path / "lacking.run").write_text("\n".join(line for line in lines if line.split()[0] != lacking) + "\n")
    run = read_run(tmp_path / "lacking.run")
    assert run.columns is not None and lacking in qrels and lacking not in run.columns
    measures = ("MAP", "nDCG@100", "P@10", "num_rel")
    computed: list[str] = []
    memo = _counting(arrays_memo(tmp_path), computed)

    def both(qrels, **options):
        plain = evaluate(run, qrels, measures, **options)
        for _ in range(2):
            kept = evaluate(run, qrels, measures, qrels_index=QrelsIndex(qrels), memo=memo, **options)
            pd.testing.assert_frame_equal(kept.per_query, plain.per_query, check_exact=True)
            assert kept.means == plain.means and kept.n_missing == plain.n_missing
        return plain

    both(qrels)
    assert both(qrels, complete=True).n_queries == both(qrels).n_queries + 1
    both(qrels, relevance_level=2)
    assert computed == ["evaluation"] * 3
    first = next(qid for qid in qrels if qid != lacking)
    changed = {**qrels, first: {doc: grade + 1 for doc, grade in qrels[first].items()}}
    assert both(changed).means["MAP"] != both(qrels).means["MAP"] and computed == ["evaluation"] * 4
    in_memory = Run(run.name, {qid: run.columns[qid] for qid in run.columns})
    evaluate(in_memory, qrels, measures, qrels_index=QrelsIndex(qrels), memo=memo)
    assert computed == ["evaluation"] * 4


def test_a_re_audit_does_not_import_scipy_stats(inputs, runs, tmp_path):
    """scipy.stats (a second of a warm audit's start-up, imported for the agreement's p-values) is not imported by a
    re-audit that reads the agreement from the cache."""
    args = _audit_args(inputs, runs, "--cache-dir", tmp_path / "cache", "--out", tmp_path / "out")
    code = ("import sys; from irfair.cli import main; main(sys.argv[1:]); "
            "print('scipy.stats' in sys.modules, file=sys.stderr)")
    imported = [subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True, text=True).stderr.split()[-1]
                for _ in range(2)]
    assert imported == ["True", "False"]
