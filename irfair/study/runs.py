"""The study's run files: made once with :func:`irfair.make_ranker` and reused from ``<out>/runs/``.

Each run file is written atomically with a manifest (:mod:`irfair.cache.files`) recording what it was
built from: the ranker, embeddings and variant, the corpus's fingerprint, the queries, the settings that
change it (depth, query field; for the neural re-rankers the candidates, epochs, seed and qrels) and
irfair's cache format. A run file is reused only when it is complete and built from the same inputs;
otherwise it is rebuilt (a damaged one is reported on stderr).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from ..cache import CacheDir, report
from ..cache.files import MISSING, file_status, write_file_entry
from ..cache.manifest import file_digest
from ..cache.manifest import value_digest as _digest
from ..corpus import Corpus, TermStore
from ..rankers import NEURAL, make_ranker
from ..trec import Qrels, Topic, read_run, write_run
from .plan import CANDIDATE_RANKER, StudyConfig, SystemSpec


def _embeddings_key(embeddings: str | None) -> object:
    if embeddings is None or not Path(embeddings).exists():
        return embeddings
    stat = Path(embeddings).stat()
    return [str(Path(embeddings).resolve()), stat.st_size, stat.st_mtime_ns]


def run_key(spec: SystemSpec, corpus: Corpus, queries: Mapping[str, str], qrels: Qrels, config: StudyConfig,
            candidates: Path | None) -> dict[str, object]:
    """What the run file of ``spec`` is built from (its cache key)."""
    key: dict[str, object] = {
        "run": spec.name, "ranker": spec.ranker, "embeddings": _embeddings_key(spec.embeddings), "variant": spec.variant,
        "corpus": corpus.name, "corpus_fingerprint": corpus.fingerprint(), "queries": _digest(queries),
        "depth": config.depth, "query_field": config.query_field,
    }
    if spec.family == NEURAL:
        key.update(candidates=config.neural_candidates, epochs=config.neural_epochs, seed=config.seed, qrels=_digest(qrels),
                   **({} if config.device == "auto" else {"device": config.device}),
                   candidate_run=None if candidates is None else file_digest(candidates)[:16])
    return key


def folds_path(runs_dir: Path, queries: Mapping[str, str]) -> Path:
    """The neural re-rankers' folds file for these queries: named by their ids, so that a study rerun with other
    topics makes its own folds instead of reading folds that miss its queries."""
    return runs_dir / f"folds-{_digest(sorted(queries))}.json"


def build_runs(specs: list[SystemSpec], corpus: Corpus, store: TermStore, topics: Mapping[str, Topic], qrels: Qrels,
               config: StudyConfig, runs_dir: Path, cache_dir: CacheDir, progress: bool,
               log: Callable[[str], None]) -> dict[str, Path]:
    """Write the run file of every spec not in ``runs_dir`` yet (or not built from the same inputs);
    returns ``{run name: path}``."""
    queries = {qid: t.text(config.query_field) for qid, t in topics.items()}
    paths = {spec.name: runs_dir / f"{spec.name}.run" for spec in specs}
    for spec in specs:
        neural = spec.family == NEURAL
        key = run_key(spec, corpus, queries, qrels, config, paths[CANDIDATE_RANKER] if neural else None)
        status, damaged = file_status(paths[spec.name], key)
        if status == "ok":
            log(f"reusing {paths[spec.name]}")
            continue
        if damaged:
            report(f"cache entry {paths[spec.name]} is damaged ({status}); rebuilding")
        elif status != MISSING:
            log(f"rebuilding {paths[spec.name]} ({status})")
        log(f"ranking {spec.name}")
        ranker = make_ranker(
            spec.ranker, corpus=corpus, embeddings=spec.embeddings, variant=spec.variant,
            cache_dir=cache_dir, qrels=qrels if neural else None,
            threads=config.threads, progress=progress, store=store,
            folds_file=folds_path(runs_dir, queries) if neural else None, log_path=runs_dir / f"{spec.name}.log" if neural else None,
            **({"top_n": config.neural_candidates, "epochs": config.neural_epochs, "seed": config.seed, "device": config.device}
               if neural else {}),
        )
        if neural:
            run = ranker.rerank(queries, read_run(paths[CANDIDATE_RANKER]))
        else:
            run = ranker.rank(queries, depth=config.depth)
        run.name = spec.name
        kept = write_file_entry(paths[spec.name], lambda tmp, run=run, tag=spec.name: write_run(tmp, run, tag=tag), key)
        if kept is not None:
            report(f"{paths[spec.name]} had no manifest (irfair may not have written it): kept as {kept.name}")
    return paths
