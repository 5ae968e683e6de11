"""Files of a study: tables as CSV (no index column: every column is named) and one Markdown report, plots
as PNG and PDF, and a self-contained ``report.html`` (matplotlib imported only when a plot is drawn)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..atomic import safe_filename, write_outputs
from ..audit.plots import pyplot, scatter_plot
from ..audit.summary import ci
from .figures import figures
from .html import study_page


def to_markdown(frame: pd.DataFrame, digits: int = 4) -> str:
    """A DataFrame as a GitHub Markdown table (index included)."""
    table = frame.reset_index() if not isinstance(frame.index, pd.RangeIndex) else frame

    def cell(value) -> str:
        if isinstance(value, (float, np.floating)):
            return "n/a" if not math.isfinite(value) else f"{value:.{digits}f}"
        return str(value)

    header = "| " + " | ".join(map(str, table.columns)) + " |"
    rule = "|" + "|".join("---" for _ in table.columns) + "|"
    rows = ["| " + " | ".join(cell(v) for v in row) + " |" for row in table.itertuples(index=False)]
    return "\n".join([header, rule, *rows])


def compact_gsr(frame: pd.DataFrame) -> pd.DataFrame:
    """The GSR table for reading: each ``*_ci_low``/``*_ci_high`` pair joined into one ``*_ci95`` column ``[low, high]``."""
    out = frame.copy()
    for column in list(out.columns):
        if "_ci_low" in column:
            high = column.replace("_ci_low", "_ci_high")
            joined = [ci(low, up) for low, up in zip(out[column], out[high])]
            out.insert(out.columns.get_loc(column), column.replace("_ci_low", "_ci95"), joined)
            out = out.drop(columns=[column, high])
    return out


def flat(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with a named index turned into columns (a RangeIndex dropped), ready for ``to_csv(index=False)``."""
    return frame if isinstance(frame.index, pd.RangeIndex) else frame.reset_index()


def _save(fig, path: Path) -> None:
    fig.savefig(path, format=path.suffix.lstrip("."), dpi=120, bbox_inches="tight")
    pyplot().close(fig)


TITLES = {
    "gsr": "GSR, delta_gsr = GSR - GSR(perfect) and relative_gsr_pct per measuring embedding",
    "effectiveness": "Effectiveness (% change vs regular; * p < 0.05, ** p < 0.01, paired t-test)",
    "reliability": "Reliability across measuring embeddings",
    "rank_changes": "Rank changes after debiasing (Kendall τ distance of the top-{depth} lists) against |g(q)|",
    "direct_stereotype": "Direct stereotypes: gap(q) = (m + 1)/(f + 1) over each list",
    "intrinsic_validation": "Intrinsic validation of genderedness (one-tailed permutation tests)",
}


def study_tables(result) -> dict[str, pd.DataFrame]:
    """Every table of the study by file stem."""
    return {
        "gsr": result.gsr, "effectiveness": result.effectiveness, "reliability": result.reliability,
        "rank_changes": result.rank_changes, "direct_stereotype": result.direct_stereotype,
        "favour_shares": result.favour, "intrinsic_validation": result.validation,
        "rank_changes_per_query": result.rank_changes_per_query,
    }


def write_study(result, out_dir: str | Path) -> list[Path]:
    """Write every table (CSV), ``study.md``, every plot (PNG + PDF) and ``report.html`` under ``out_dir``, all-or-nothing."""
    tables = study_tables(result)
    writers = {f"{name}.csv": (lambda p, t=table: flat(t).to_csv(p, index=False)) for name, table in tables.items()}
    markdown = ["# GSR study", ""]
    for name, title in TITLES.items():
        shown = compact_gsr(tables[name]) if name == "gsr" else tables[name]
        markdown += [f"## {title.format(depth=result.tau_depth)}", "", to_markdown(shown), ""]
    notes = {emb: audit.relative_gsr_note for emb, audit in result.audits.items() if audit.relative_gsr_note}
    markdown += [f"relative_gsr_pct [{emb}]: {note}" for emb, note in notes.items()]
    writers["study.md"] = lambda p: p.write_text("\n".join(markdown) + "\n", encoding="utf-8")
    for stem, make in figures(result).items():
        for suffix in ("png", "pdf"):
            writers[f"{stem}.{suffix}"] = lambda p, make=make: _save(make(), p)
    for emb, audit in result.audits.items():
        folder = f"plots/{safe_filename(Path(emb).name)}"
        for suffix in ("png", "pdf"):
            for name in audit.systems:
                writers[f"{folder}/scatter_{safe_filename(name)}.{suffix}"] = lambda p, a=audit, n=name: scatter_plot(a, n, p)
    titles = {name: title.format(depth=result.tau_depth) for name, title in TITLES.items()}
    writers["report.html"] = lambda p: p.write_text(study_page(result, {t: flat(tables[n]) for n, t in titles.items()}), encoding="utf-8")
    return write_outputs(out_dir, writers)
