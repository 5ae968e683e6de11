"""Files of a study: tables as CSV (no index column: every column is named) and one Markdown report, plots
as PNG and PDF, and a self-contained ``report.html`` (matplotlib imported only when a plot is drawn)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..atomic import unique_filenames, write_outputs
from ..audit import PERFECT
from ..numbers import fixed
from ..study.tables import embedding_column
from .plots import figure_svg, pyplot, rendered_figures, save_figure, scatter_figure
from .study_figures import figures
from .study_html import study_page
from .summary import ci
from .text_table import fixed_width


def to_markdown(frame: pd.DataFrame, digits: int = 4) -> str:
    """A DataFrame as a GitHub Markdown table (index included)."""
    table = frame.reset_index() if not isinstance(frame.index, pd.RangeIndex) else frame

    def cell(value) -> str:
        if isinstance(value, (float, np.floating)):
            return fixed(value, digits)
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


class FigureCache:
    """Each figure drawn once and saved in every format (PNG, PDF, inline SVG); all closed by :meth:`close`."""

    def __init__(self) -> None:
        self.figures: dict[str, object] = {}

    def get(self, key: str, make):
        """The figure of ``key``, made by ``make()`` the first time."""
        if key not in self.figures:
            self.figures[key] = make()
        return self.figures[key]

    def close(self) -> None:
        """Close every figure made."""
        for fig in self.figures.values():
            pyplot().close(fig)
        self.figures.clear()


TITLES = {
    "gsr": "GSR, delta_gsr = GSR - GSR(perfect) and relative_gsr_pct with 95% CIs; columns end with the measuring embedding",
    "effectiveness": "Effectiveness (*_change_pct: % change vs the regular variant; *_p: the audit's paired randomization test, "
                      "Holm-corrected over its pairs; * differs, ** and p < 0.01, ? undecided)",
    "reliability": "Reliability across measuring embeddings",
    "rank_changes": "Rank changes after debiasing (Kendall τ distance of the top-{depth} lists) against |g(q)|",
    "direct_stereotype": "Direct stereotypes: gap(q) = (m + 1)/(f + 1) over each list",
    "intrinsic_validation": "Intrinsic validation of genderedness (one-tailed permutation tests)",
}


def relative_notes(result) -> list[str]:
    """One line per measuring embedding whose relative GSR is n/a, saying why."""
    return [f"{embedding_column('relative_gsr_pct', emb)}: {audit.relative_gsr_note}"
            for emb, audit in result.audits.items() if audit.relative_gsr_note]


def gsr_lines(result, embeddings: str) -> list[str]:
    """The GSR of every run measured with ``embeddings``, fitting 100 columns: answer line, then the table."""
    audit = result.audits[embeddings]
    table = result.gsr
    column = lambda name: embedding_column(name, embeddings)  # noqa: E731
    perfect = audit.perfect.gsr
    lines = [f"GSR measured with {embeddings} (gsr.csv: *{column('')}); perfect run "
             f"{fixed(perfect.slope, sign=True)} {ci(perfect.ci_low, perfect.ci_high)}"]
    rows = []
    for values in table.to_dict("records"):
        is_perfect = values["run"] == PERFECT
        rows.append([values["run"], fixed(values[column("gsr")], sign=True),
                     ci(values[column("gsr_ci_low")], values[column("gsr_ci_high")]),
                     "-" if is_perfect else fixed(values[column("delta_gsr")], sign=True),
                     "-" if is_perfect else ci(values[column("delta_gsr_ci_low")], values[column("delta_gsr_ci_high")]),
                     "-" if is_perfect else fixed(values[column("delta_gsr_p")], 3)])
    lines += fixed_width(["run", "gsr", "gsr_ci95", "delta_gsr", "delta_gsr_ci95", "delta_gsr_p"], rows)
    if audit.relative_gsr_note:
        lines.append(f"{column('relative_gsr_pct')}: {audit.relative_gsr_note}")
    else:
        lines.append(f"{column('relative_gsr_pct')} (100 · delta_gsr / gsr(perfect)) with its CI: gsr.csv, --wide")
    return lines


def terminal_text(result, wide: bool = False) -> str:
    """What ``irfair study`` prints: per measuring embedding the runs' GSR and ΔGSR with CIs (≤ 100 columns),
    then the agreement of the embeddings; ``wide``: the whole GSR table (relative GSR with its CI included)."""
    if wide:
        lines = [to_markdown(compact_gsr(result.gsr)), *relative_notes(result)]
    else:
        lines = []
        for emb in result.audits:
            lines += [*gsr_lines(result, emb), ""]
        lines.pop()
    reliability = result.reliability
    if len(reliability):
        lines += ["", "agreement of the measuring embeddings: Spearman rho of the runs' GSR, Pearson r of g(q)"]
        rows = [[r.embeddings, fixed(r.spearman_rho_gsr, sign=True), fixed(r.spearman_p, 3), str(r.n_systems),
                 fixed(r.pearson_r_query_g, sign=True), fixed(r.pearson_p, 3), str(r.n_queries)]
                for r in reliability.itertuples(index=False)]
        lines += fixed_width(list(reliability.columns), rows)
    return "\n".join(lines) + "\n"


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
    markdown += relative_notes(result)
    writers["study.md"] = lambda p: p.write_text("\n".join(markdown) + "\n", encoding="utf-8")
    cache = FigureCache()
    study_figures = figures(result)
    for stem, make in study_figures.items():
        for suffix in ("png", "pdf"):
            writers[f"{stem}.{suffix}"] = lambda p, stem=stem, make=make: save_figure(cache.get(stem, make), p)
    folders = unique_filenames([Path(emb).name for emb in result.audits], "plot folders")
    files = unique_filenames(dict.fromkeys(name for audit in result.audits.values() for name in audit.systems), "scatter plot files")
    scatters = {f"plots/{folders[Path(emb).name]}/scatter_{files[name]}": (lambda a=audit, n=name: scatter_figure(a, n))
                for emb, audit in result.audits.items() for name in audit.systems}
    titles = {name: title.format(depth=result.tau_depth) for name, title in TITLES.items()}
    svgs = {stem: (lambda stem=stem, make=make: figure_svg(cache.get(stem, make), close=False)) for stem, make in study_figures.items()}
    try:
        # the scatter plots (a study's most: one per system and embedding) drawn by worker processes meanwhile
        with rendered_figures(scatters, ("png", "pdf")) as drawn:
            for stem, get in drawn.items():
                for suffix in ("png", "pdf"):
                    writers[f"{stem}.{suffix}"] = lambda p, get=get, suffix=suffix: p.write_bytes(get()[suffix])
            writers["report.html"] = lambda p: p.write_text(
                study_page(result, {t: flat(tables[n]) for n, t in titles.items()}, svgs), encoding="utf-8")
            return write_outputs(out_dir, writers)
    finally:
        cache.close()
