"""Fairness of exposure in the audit (``--bias-measures ee,awrf``): the batch path equal to the per-query functions
that match the reference programs (tests/test_exposure_reference.py), the perfect run's ties by enumeration,
hand-worked values on a hand-made collection with groups read from the documents and from a file, the groups
file reader's errors, and the command line."""
import gzip
import itertools
import json
import math

import jsonschema
import numpy as np
import pytest

from irfair.audit import audit
from irfair.audit.result import audit_schema
from irfair.cli import main
from irfair.errors import IrfairInputError
from irfair.measures.exposure import UNKNOWN, alignment, awrf, expected_exposure, fair_score
from irfair.measures.exposure_batch import ExposureDocs, QueryTargets, groups_from_counts
from irfair.measures.ranking_bias import AWRF, EE, SHARES, TIE_STANDARD_ERROR, RankedDocs, tie_groups
from irfair.presentation.report import save_audit
from irfair.toy import toy_direct
from irfair.trec import Topic
from irfair.trec.document_groups import read_document_groups

LABELS = ("a", "b", UNKNOWN)
GROUPS = {"d0": ("a",), "d1": ("b",), "d2": ("a", "b"), "d3": (), "d4": ("a",), "d5": ("b",), "d6": ("a",), "d7": ("b",),
          "d8": ("a",), "d9": ("b",)}  # d3 and d10-d11: no group (unknown); d2 in both


def _batch(rankings, qrels, ties=False):
    """RankedDocs with the exposure inputs of ``rankings`` ({qid: doc ids}) under ``qrels`` ({qid: {doc: grade}})."""
    qids = list(rankings)
    width = max(len(r) for r in rankings.values())
    mask = np.array([[i < len(rankings[q]) for i in range(width)] for q in qids])
    groups = np.zeros((len(qids), width, len(LABELS)))
    grades = np.zeros((len(qids), width))
    for row, qid in enumerate(qids):
        docs = rankings[qid]
        if docs:
            groups[row, :len(docs)] = alignment(docs, GROUPS, LABELS)
        grades[row, :len(docs)] = [qrels[qid].get(d, 0) for d in docs]
    relevant = [{d: g for d, g in qrels[q].items() if g > 0} for q in qids]
    targets = QueryTargets(LABELS, tuple(np.array(list(r.values()), dtype=np.int64) for r in relevant),
                           tuple(alignment(list(r), GROUPS, LABELS).reshape(-1, len(LABELS)) for r in relevant))
    zeros = np.zeros(mask.shape)
    return RankedDocs(zeros, zeros, zeros, mask, tie_groups(grades, mask) if ties else None,
                      exposure=ExposureDocs(groups, grades, targets))


def _cases(seed):
    rng = np.random.default_rng(seed)
    docs = [f"d{i}" for i in range(12)]
    rankings, qrels = {}, {}
    for q in range(8):
        qid = str(q)
        rankings[qid] = list(rng.permutation(docs)[:int(rng.integers(0, 10))])
        judged = rng.permutation(docs)[:int(rng.integers(0, 7))]
        qrels[qid] = {d: int(rng.integers(0, 4)) for d in judged}  # grade 0: judged non-relevant, read as unjudged
    qrels["0"] = {}  # no relevant document: undefined
    rankings["1"] = []  # an empty list: undefined
    return rankings, qrels


@pytest.mark.parametrize("model", ["trec2022", "gerr", "rbp"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_batch_equals_the_per_query_functions(model, seed):
    """Every query of random batches (documents in two groups, in none, judged non-relevant, queries without a
    relevant document, an empty list): EE-L/D/R, AWRF and nDCG × AWRF at four cut-offs as the functions that
    match expeval and TREC Fair 2022 give them, within 1e-12 (NaN where those are undefined)."""
    rankings, qrels = _cases(seed)
    cutoffs = (1, 3, 5, 8)
    ee = EE.with_options(cutoffs=cutoffs, parameters=(("model", model), ("p", 0.5), ("u", 0.5)))
    found = ee.per_query(ee, _batch(rankings, qrels)) | AWRF.per_query(AWRF.with_options(cutoffs=cutoffs), _batch(rankings, qrels))
    checked = 0
    for row, qid in enumerate(rankings):
        for k in cutoffs:
            ranking, grades = rankings[qid], qrels[qid]
            want = expected_exposure(ranking, grades, GROUPS, LABELS, model=model, cutoff=k)
            want_awrf = awrf(ranking, grades, GROUPS, LABELS, cutoff=k)
            want_fair = fair_score(ranking, grades, GROUPS, LABELS, depth=k, cutoff=k)
            for column, value in ((f"ee_l@{k}", want.ee_l), (f"ee_d@{k}", want.ee_d), (f"ee_r@{k}", want.ee_r),
                                  (f"awrf@{k}", want_awrf), (f"awrf_ndcg@{k}", want_fair)):
                got = found[column][row]
                assert (math.isnan(got) and math.isnan(value)) or got == pytest.approx(value, abs=1e-12), (qid, column)
                checked += not math.isnan(value)
    assert checked > 60  # most values are defined


def test_the_perfect_runs_ties_by_enumeration():
    """Relevant documents of equal grade have no order. AWRF (and nDCG × AWRF) is the mean over every order of each
    tie; EE reads the ties as the policy that shuffles them: its ε is the mean over the orders (expected_exposure
    of every order as a sample), so EE-L is 0 where the cut-off holds every relevant document, each in one group."""
    qrels = {"1": {"d0": 2, "d1": 1, "d2": 1, "d3": 1, "d4": 1}, "2": {"d5": 1, "d6": 1, "d7": 1}}
    rankings = {"1": ["d0", "d1", "d2", "d3", "d4"], "2": ["d5", "d6", "d7"]}
    batch = _batch(rankings, qrels, ties=True)
    cutoffs = (2, 3, 5)
    found = EE.with_options(cutoffs=cutoffs).per_query(EE.with_options(cutoffs=cutoffs), batch)
    found |= AWRF.with_options(cutoffs=cutoffs).per_query(AWRF.with_options(cutoffs=cutoffs), batch)
    for row, qid in enumerate(rankings):
        head, tail = rankings[qid][:1] if qid == "1" else [], rankings[qid][1:] if qid == "1" else rankings[qid]
        orders = [head + list(order) for order in itertools.permutations(tail)]
        for k in cutoffs:
            policy = expected_exposure(orders, qrels[qid], GROUPS, LABELS, cutoff=k)
            assert found[f"ee_l@{k}"][row] == pytest.approx(policy.ee_l, abs=1e-12)
            assert found[f"ee_r@{k}"][row] == pytest.approx(policy.ee_r, abs=1e-12)
            mean_awrf = np.mean([awrf(order, qrels[qid], GROUPS, LABELS, cutoff=k) for order in orders])
            mean_fair = np.mean([fair_score(order, qrels[qid], GROUPS, LABELS, depth=k, cutoff=k) for order in orders])
            assert found[f"awrf@{k}"][row] == pytest.approx(mean_awrf, abs=1e-12)
            assert found[f"awrf_ndcg@{k}"][row] == pytest.approx(mean_fair, abs=1e-7)  # nDCG in float32
            assert found[f"awrf@{k}{TIE_STANDARD_ERROR}"][row] == 0.0  # exact
    assert found["ee_l@3"][1] == pytest.approx(0.0, abs=1e-12)
    # query 1 holds d2, in both groups: TREC 2022 normalises the multi-hot target to Σ w(1..k), the system's
    # exposure is not, so even the ideal policy is off (the reference's convention, kept)
    assert found["ee_l@5"][0] > 0.1
    # the shares of the attention: query 2 (d5 b, d6 a, d7 b) at @3 with w = 1, 1, 1/log2 3, every order alike in expectation
    shares = found[f"awrf@3{SHARES}"][1]
    assert shares == pytest.approx([1 / 3, 2 / 3, 0.0], abs=1e-7)


def test_the_rule_reads_more_female_or_male_words():
    assert groups_from_counts([2, 0, 1, 0], [1, 3, 1, 0]).tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]]


# ---------------------------------------------------------------- a hand-made collection

DOCS = {"m1": "he his", "m2": "he", "m3": "his man", "f1": "she her", "f2": "woman", "b1": "she he", "n1": "table"}
QRELS = {"1": {"m1": 2, "b1": 1}, "2": {"f1": 1, "m2": 1, "n1": 0}}
TOPICS = {"1": Topic("1", "nurse"), "2": Topic("2", "doctor")}
RUN = {"sys": {"1": ["m1", "b1", "m2", "m3", "f2"], "2": ["n1", "f1", "m2"]}}
W = [1.0, 1.0, 1 / math.log2(3), 0.5, 1 / math.log2(5)]  # TREC Fair 2022's discount 1/log2(max(i, 2))


def _hand(hand, **options):
    return audit(RUN, QRELS, TOPICS, DOCS, hand, n_bootstrap=50, cache_dir=False, bias_measures="ee,awrf", **options)


def _value(result, system, qid, column):
    frame = result.per_query()
    return frame[(frame["system"] == system) & (frame["qid"] == qid)][column].iloc[0]


def test_hand_values_with_groups_read_from_the_documents(hand):
    """Groups by the rule (rekabsaz2020's words): m1-m3 male, f1 f2 female, b1 (she he) and n1 neither.

    sys, query 1 (m1 g2 male, b1 g1 neither, m2 m3 male, f2 female), @5. EE: relevant m1 at 1, b1 at 2: ε = (0, 1, 1)
    (female, male, neither). Target: m1 alone at grade 2 gets w1 = 1, b1 gets w2 = 1: (0, 1, 1), normalised and
    scaled by W5 = Σ w(1..5): (0, W5/2, W5/2). EE-L = 2 (1 − W5/2)², EE-D = 2, EE-R = W5.
    AWRF@5: attention (w5/W5, (w1 + w3 + w4)/W5, w2/W5); target: relevant mean (0, ½, ½) with neither kept as unknown
    and the known part (0, ½) mixed half and half with uniform: (¼·½, ¾·½, ½) = (⅛, ⅜, ½). nDCG@5 = (w1 + w2)/(w1 + w2) = 1.
    Query 2 (n1 judged 0, f1 female, m2 male, both grade 1), @5: ε = (w2, w3, 0); target (1, 1, 0)·W5/2... per level
    mean of w1, w2 = 1 each, so (1, 1, 0) → (W5/2, W5/2, 0): EE-L = (1 − W5/2)² + (w3 − W5/2)².
    nDCG@5 = (w2 + w3)/(w1 + w2)."""
    result = _hand(hand)
    w5 = sum(W)
    assert result.bias.exposure.labels == ("female", "male", "neither")
    assert _value(result, "sys", "1", "ee_l@5") == pytest.approx(2 * (1 - w5 / 2) ** 2, abs=1e-6)
    assert _value(result, "sys", "1", "ee_d@5") == pytest.approx(2.0, abs=1e-6)
    assert _value(result, "sys", "1", "ee_r@5") == pytest.approx(w5, abs=1e-6)
    attention = np.array([W[4], W[0] + W[2] + W[3], W[1]]) / w5
    target = np.array([1 / 8, 3 / 8, 1 / 2])
    middle = (attention + target) / 2
    js = (np.sum(attention * np.log(attention / middle)) + np.sum(target * np.log(target / middle))) / 2
    assert _value(result, "sys", "1", "awrf@5") == pytest.approx(1 - js, abs=1e-6)
    assert _value(result, "sys", "1", "awrf_ndcg@5") == pytest.approx(1 - js, abs=1e-6)
    assert _value(result, "sys", "2", "ee_l@5") == pytest.approx((1 - w5 / 2) ** 2 + (W[2] - w5 / 2) ** 2, abs=1e-6)
    fair = _value(result, "sys", "2", "awrf_ndcg@5") / _value(result, "sys", "2", "awrf@5")
    assert fair == pytest.approx((W[1] + W[2]) / (W[0] + W[1]), abs=1e-6)
    shares = result["sys"].bias.shares["awrf@5"]
    assert shares["female"] == pytest.approx((W[4] / w5 + W[1] / sum(W[:3])) / 2, abs=1e-7)
    # the perfect run holds query 1's m1 then b1, query 2's f1 and m2 (one tie): EE-L@5 = (1 − W5/2)² · 2 for each
    assert _value(result, "perfect", "2", "ee_l@5") == pytest.approx(2 * (1 - w5 / 2) ** 2, abs=1e-6)


def test_hand_values_with_a_groups_file(hand, tmp_path):
    """A gzip JSONL groups file with two attributes: gender is audited by default, f2 is listed without a label and
    the documents it does not list are in unknown. Query 2 @5: f1 (b) at 2, m2 (a) at 3 — as labelled here."""
    path = tmp_path / "groups.jsonl.gz"
    lines = [{"doc_id": "f1", "gender": ["b"], "region": "x"}, {"doc_id": "m2", "gender": "a", "region": ["x", "y"]},
             {"doc_id": "f2", "gender": None}]
    path.write_bytes(gzip.compress("".join(json.dumps(line) + "\n" for line in lines).encode()))
    result = _hand(hand, document_groups=path)
    assert result.bias.exposure.labels == ("a", "b", UNKNOWN)
    w5 = sum(W)
    # ε = (w3, w2, 0); target: f1 and m2 at grade 1 get 1 each: (1, 1, 0) → (W5/2, W5/2, 0)
    assert _value(result, "sys", "2", "ee_l@5") == pytest.approx((W[2] - w5 / 2) ** 2 + (1 - w5 / 2) ** 2, abs=1e-6)
    # query 1: m1 and b1 are not in the file: both unknown; ε = (0, 0, 2), target (0, 0, W5)
    assert _value(result, "sys", "1", "ee_l@5") == pytest.approx((2 - w5) ** 2, abs=1e-6)
    region = _hand(hand, document_groups=path, group_attribute="region")
    assert region.bias.exposure.labels == ("x", "y", UNKNOWN)


# ---------------------------------------------------------------- the groups file


@pytest.mark.parametrize("text, message", [
    ("d1\tfemale\nd2\n", ":2: expected doc_id<TAB>label or doc_id<TAB>attribute<TAB>label, got 1 field"),
    ("d1\tfemale\nd2\tgender\tmale\n", ":2: expected 2 tab-separated fields as on the lines before, got 3"),
    ("d1\tunknown\n", ":1: the label 'unknown' is reserved"),
    ("d1\tfemale\nd2\t\n", ":2: expected a label, got an empty field"),
    ("\tfemale\n", ":1: expected a doc_id, got an empty field"),
    ('{"doc_id": "d1", "id": "d2", "gender": "female"}\n', ":1: expected one document id, got 2 keys: id, doc_id"),
    ('{"doc_id": "d1", "gender": ["female"]}\n{"doc_id": "d2", "gender": [1]}\n', ":2: expected a label"),
    ('{"doc_id": "d1", "gender": "female"}\n{"gender": "male"}\n', ":2: expected the document id (a string or integer) under id, doc_id"),
    ('{"doc_id": "d1", "gender": "female"}\n{"doc_id": "d1", "gender": "male"}\n', ":2: document d1 is listed twice"),
    ('{"doc_id": "d1", "gender": "female"\n', ":1: expected one JSON object a line"),
    ('{"doc_id": "d1", "a": "x", "b": "y"}\n', "attributes a, b: name one with --group-attribute"),
    ("# only a comment\n", "expected document groups"),
    ('{"doc_id": "d1", "gender": null}\n{"doc_id": "d2", "gender": []}\n', "no document has a label of 'gender'"),
])
def test_bad_groups_files_are_one_line(tmp_path, text, message):
    path = tmp_path / "groups.txt"
    path.write_text(text)
    with pytest.raises(IrfairInputError) as caught:
        read_document_groups(path)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_groups_files_tsv_two_and_three_fields(tmp_path):
    two = tmp_path / "two.tsv"
    two.write_text("# doc\tlabel\nd1\tfemale\nd1\tmale\nd2\tmale\n")
    groups = read_document_groups(two)
    assert groups.of == {"d1": ("female", "male"), "d2": ("male",)} and groups.labels == ("female", "male", UNKNOWN)
    three = tmp_path / "three.tsv"
    three.write_text("d1\tgender\tfemale\nd1\tregion\teu\n")
    assert read_document_groups(three).attribute == "gender"
    assert read_document_groups(three, "region").of == {"d1": ("eu",)}
    with pytest.raises(IrfairInputError, match="expected the attribute 'age', found gender, region"):
        read_document_groups(three, "age")


# ---------------------------------------------------------------- the command line


@pytest.fixture(scope="module")
def toy_files(tmp_path_factory):
    return toy_direct().write(tmp_path_factory.mktemp("toy1"))


def _cli(paths, *options):
    return main(["audit", str(paths["S"]), str(paths["CS"]), "--qrels", str(paths["qrels"]), "--topics", str(paths["topics"]),
                 "--corpus", str(paths["corpus"]), "--embeddings", "glove-6b-50d", "--bootstrap", "20", "--no-cache", "--no-plots",
                 *options])


def test_cli_exposure_audit(toy_files, tmp_path, capsys):
    """The GSR paper's toy 1 (S: the stereotypical document alone; CS: the other one) with groups from a file that
    labels the "woman" documents only: S shows the female group on the female-job queries, CS on the others."""
    out = tmp_path / "out"
    groups = tmp_path / "groups.tsv"
    docs = [line.split('"')[3] for line in toy_files["corpus"].read_text().splitlines()]
    groups.write_text("".join(f"{doc}\tfemale\n" for doc in docs if doc.endswith("-woman")))
    code = _cli(toy_files, "--bias-measures", "ee,awrf", "--document-groups", str(groups), "--exposure-model", "gerr",
                "--out", str(out))
    printed = " ".join(capsys.readouterr().out.split())  # the verdict's lines unwrapped
    assert code == 0
    assert "exposure @10 (groups of groups.tsv, group: female/unknown), pairs differing (of 1): ee_l 0, awrf 0" in printed
    assert "who gets seen @10 (female/unknown, % of the attention): perfect 50.0/50.0; random " in printed
    assert "; S 50.0/50.0; CS 50.0/50.0" in printed
    record = json.loads((out / "audit.json").read_text())
    jsonschema.validate(record, audit_schema())
    assert record["bias_measures"]["ee"]["parameters"]["model"] == "gerr"
    assert record["bias_measures"]["ee"]["groups"]["documents_per_label"] == {"female": 20, UNKNOWN: 0}
    assert set(record["systems"]["S"]["bias"]["awrf@10"]["attention_shares"]) == {"female", UNKNOWN}


@pytest.mark.parametrize("options, message", [
    (["--document-groups", "groups.tsv"], "document groups but no exposure measure: add ee or awrf"),
    (["--bias-measures", "ee", "--group-attribute", "gender"], "group attribute 'gender' without document groups"),
    (["--fail-on", "ee_l@10-above:S"], "unknown measure 'ee_l@10' (ee is not audited: add it to --bias-measures)"),
    (["--bias-measures", "rab", "--exposure-model", "rbp"], "exposure model rbp: ee is not among the bias measures (rab)"),
])
def test_cli_exposure_options_without_their_measure(toy_files, capsys, options, message):
    assert _cli(toy_files, *options) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_groups_of_another_collection(hand, tmp_path):
    """A groups file none of whose documents is in the corpus would leave every document unknown and every list
    perfectly fair: one line instead."""
    path = tmp_path / "other.tsv"
    path.write_text("XX1\tfemale\nXX2\tmale\n")
    with pytest.raises(IrfairInputError, match="none of its 2 documents is in the corpus \\(the first: XX1\\)"):
        _hand(hand, document_groups=path)


def test_outputs_with_exposure_measures(hand, tmp_path):
    result = _hand(hand)
    paths = save_audit(result, tmp_path / "out", plots=False)
    table = (tmp_path / "out" / "table.txt").read_text()
    assert "ee, awrf: groups read from the documents: female/male/neither" in table
    assert any(p.name == "report.html" for p in paths)


def test_a_tie_longer_than_the_depth_is_read_whole(hand):
    """25 relevant documents of one grade (10 with "she", 15 with "he"), the measures read to depth 20: the perfect
    run's tie reaches past it, so every document is as likely to be in the top 20. EE-L@20 is then 0 (each document's
    expected exposure Σw(1..20)/25 is its target); RaB_tc@10 = 15/25 − 10/25 = 0.2 at every cut-off; AWRF@5 is the
    mean over the 2^5 sequences of groups the top 5 can hold, each with its probability drawn without replacement
    (target: ½ (0.4, 0.6) + ½ (½, ½) = (0.45, 0.55), neither 0)."""
    docs = {**{f"f{i:02d}": "she" for i in range(10)}, **{f"m{i:02d}": "he" for i in range(15)}}
    qrels = {"1": dict.fromkeys(docs, 1)}
    run = {"sys": {"1": sorted(docs)}}
    result = audit(run, qrels, {"1": Topic("1", "nurse")}, docs, hand, n_bootstrap=50, cache_dir=False, bias_measures="rab,ee,awrf")
    assert _value(result, "perfect", "1", "ee_l@20") == pytest.approx(0.0, abs=1e-9)
    assert _value(result, "perfect", "1", "rab_tc@10") == pytest.approx(0.2, abs=1e-12)
    w = np.array([1.0, 1.0, 1 / math.log2(3), 0.5, 1 / math.log2(5)])
    target = np.array([0.45, 0.55])
    expected = 0.0
    for kinds in itertools.product((0, 1), repeat=5):  # 0: female, 1: male
        left, probability = [10, 15], 1.0
        for kind in kinds:
            probability *= left[kind] / sum(left)
            left[kind] -= 1
        attention = np.array([w[np.array(kinds) == 0].sum(), w[np.array(kinds) == 1].sum()]) / w.sum()
        middle = (attention + target) / 2
        held = attention > 0
        js = (np.sum(attention[held] * np.log(attention[held] / middle[held])) + np.sum(target * np.log(target / middle))) / 2
        expected += probability * (1 - js)
    assert _value(result, "perfect", "1", "awrf@5") == pytest.approx(expected, abs=1e-7)


def test_a_tie_shows_a_group_when_any_of_its_documents_has_one(hand):
    """Six relevant documents of one grade, five without a gendered word and one with "she": the perfect run's top 5
    may hold the female one (a tie has no order), so no perfect list counts as showing no group at @5; the system,
    which ranks the five ungendered documents first, shows none in its top 5 and the female one at @10."""
    docs = {**{f"a{i}": "table" for i in range(5)}, "z0": "she"}
    qrels = {"1": dict.fromkeys(docs, 1)}
    run = {"sys": {"1": ["a0", "a1", "a2", "a3", "a4", "z0"]}}
    result = audit(run, qrels, {"1": Topic("1", "nurse")}, docs, hand, n_bootstrap=50, cache_dir=False, bias_measures="awrf")
    assert result["perfect"].bias.no_gendered_word["awrf@5"] == 0
    assert result["sys"].bias.no_gendered_word["awrf@5"] == 1 and result["sys"].bias.no_gendered_word["awrf@10"] == 0
