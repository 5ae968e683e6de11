"""The study's run files: made once with :func:`irfair.make_ranker` and reused from ``<out>/runs/``."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from ..cache import CacheDir
from ..corpus import Corpus, TermStore
from ..rankers import NEURAL, make_ranker
from ..trec import Qrels, Topic, read_run, write_run
from .plan import CANDIDATE_RANKER, StudyConfig, SystemSpec


def build_runs(specs: list[SystemSpec], corpus: Corpus, store: TermStore, topics: Mapping[str, Topic], qrels: Qrels,
               config: StudyConfig, runs_dir: Path, cache_dir: CacheDir, progress: bool,
               log: Callable[[str], None]) -> dict[str, Path]:
    """Write the run file of every spec not in ``runs_dir`` yet; returns ``{run name: path}``."""
    queries = {qid: t.text(config.query_field) for qid, t in topics.items()}
    paths = {spec.name: runs_dir / f"{spec.name}.run" for spec in specs}
    for spec in specs:
        if paths[spec.name].is_file():
            log(f"reusing {paths[spec.name]}")
            continue
        log(f"ranking {spec.name}")
        neural = spec.family == NEURAL
        ranker = make_ranker(
            spec.ranker, corpus=corpus, embeddings=spec.embeddings, variant=spec.variant,
            cache_dir=cache_dir, qrels=qrels if neural else None,
            threads=config.threads, progress=progress, store=store,
            folds_file=runs_dir / "folds.json" if neural else None, log_path=runs_dir / f"{spec.name}.log" if neural else None,
            **({"top_n": config.neural_candidates, "epochs": config.neural_epochs, "seed": config.seed} if neural else {}),
        )
        if neural:
            run = ranker.rerank(queries, read_run(paths[CANDIDATE_RANKER]))
        else:
            run = ranker.rank(queries, depth=config.depth)
        run.name = spec.name
        write_run(paths[spec.name], run, tag=spec.name)
    return paths
