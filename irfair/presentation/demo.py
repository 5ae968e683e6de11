"""The demo: the GSR paper's two toy collections written to files and audited through the same loaders a
user would use (S, N and CS systems; see :mod:`irfair.toy`)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..audit.core import audit
from ..audit.result import AuditResult
from ..toy import toy_direct, toy_indirect
from .report import save_audit

DEMO_EMBEDDINGS = ("w2v-gnews-26k", "glove-6b-50d")


@dataclass(frozen=True)
class DemoAudit:
    """One toy collection audited with one embedding set, and where its files went."""

    collection: str
    embeddings: str
    result: AuditResult
    folder: Path


def run_demo(out_dir: str | Path, embeddings: Sequence[str] = DEMO_EMBEDDINGS, n_bootstrap: int = 1000,
             seed: int = 0) -> Iterator[DemoAudit]:
    """Write both toy collections under ``out_dir`` and yield their audits (files saved beside them)."""
    out = Path(out_dir)
    for toy in (toy_direct(), toy_indirect()):
        paths = toy.write(out / toy.name)
        runs = [paths["S"], paths["N"], paths["CS"]]
        for name in embeddings:
            result = audit(runs, paths["qrels"], paths["topics"], paths["corpus"], name, n_bootstrap=n_bootstrap, seed=seed)
            folder = out / toy.name / f"audit-{Path(str(name)).name}"
            save_audit(result, folder)
            yield DemoAudit(toy.name, str(name), result, folder)
