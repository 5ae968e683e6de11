"""Run diazf/expeval's CLI (group mode -G, unnormalised -U) on the fixtures of
tests/data/exposure/fixtures.json and print its numbers.

    python3 scripts/reference_exposure/run_expeval.py /path/to/expeval-checkout

The checkout is https://github.com/diazf/expeval at 69ab070f9e3fb186910412c1c0d98ec35cb933bc
(standard library only). Labels become expeval's integer groups (``unknown`` -> -1, a doc in several
groups -> ``0|1``); every judged doc is a qrels line (expeval keeps the grade > 0 ones); each sampled
ranking is one sample id with ranks 1..n. The qrels and run files written are printed too."""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "data" / "exposure" / "fixtures.json"
CONFIGS = {"gerr": ["-u", "gerr"], "rbp": ["-u", "rbp"],
           "gerr p=0.7 u=0.3": ["-u", "gerr", "-p", "0.7", "-r", "0.3"], "rbp p=0.8": ["-u", "rbp", "-p", "0.8"]}
NAMES = {"disparity": "ee_d", "relevance": "ee_r", "difference": "ee_l"}


def write_inputs(fixtures: dict, folder: Path) -> tuple[Path, Path]:
    """expeval's 4-field qrels (qid groups docid rel) and its run (qid sample docid rank score tag)."""
    group_ids = {label: (-1 if label == "unknown" else i) for i, label in enumerate(fixtures["labels"])}
    qrels, run = [], []
    for qid, query in fixtures["queries"].items():
        for doc, grade in query["grades"].items():
            labels = query["groups"].get(doc) or ["unknown"]
            qrels.append(f"{qid} {'|'.join(str(group_ids[g]) for g in labels)} {doc} {grade}")
        for sample, ranking in enumerate(query["rankings"]):
            run += [f"{qid} {sample} {doc} {rank} {len(ranking) - rank} fixture" for rank, doc in enumerate(ranking, 1)]
    (folder / "qrels").write_text("\n".join(qrels) + "\n")
    (folder / "run").write_text("\n".join(run) + "\n")
    return folder / "qrels", folder / "run"


def main(expeval: Path) -> None:
    fixtures = json.loads(FIXTURES.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = write_inputs(fixtures, Path(tmp))
        print("# qrels\n" + qrels.read_text() + "# run\n" + run.read_text())
        results = {}
        for name, options in CONFIGS.items():
            command = [sys.executable, "expeval.py", "-G", "-U", *options, str(qrels), str(run)]
            print("#", " ".join(command[1:]))
            printed = subprocess.run(command, cwd=expeval, capture_output=True, text=True, check=True).stdout
            print(printed, end="")
            for line in printed.splitlines():
                measure, qid, value = line.split("\t")
                results.setdefault(name, {}).setdefault(qid, {})[NAMES[measure]] = value
        print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
