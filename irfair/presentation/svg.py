"""The report's two summary figures as hand-written inline SVG (no matplotlib: they are a few lines and
text, drawn in milliseconds and sized to the page):

* forest plot — each row's ΔGSR = GSR − GSR(perfect) with its CI (the paired test inverted) made simultaneous over the
  systems (Bonferroni: level 1 − 0.05/m), the perfect run at 0; filled when the test decides "differs" after the
  correction over the systems (the verdict's decision), so that a filled mark and an unadjusted interval
  clear of 0 are not read against each other;
* trade-off plot — each audited system's GSR against the first effectiveness measure, with CI crosshairs,
  labelled by its letter; the Pareto front (lower GSR, higher effectiveness) as a line, with each system's
  share of bootstrap resamples on the front; the perfect and random runs' GSR as labelled dashed lines.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from ..audit.kinds import PERFECT, RANDOM
from ..audit.result import AuditResult
from ..measures.resampling import DIFFERS
from ..numbers import fixed

FONT = 'font-family="system-ui, sans-serif"'
INK, MUTED, ACCENT, GRID, FRONT = "#1d2430", "#5b6472", "#2b5c8a", "#d7dbe1", "#b5562b"


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values covering [low, high] (steps of 1, 2 or 5 × a power of ten)."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else []
    raw = (high - low) / max(1, count)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9)
    return [round(i * step, 12) for i in range(first, math.floor(high / step + 1e-9) + 1)]


class Scale:
    """A linear map from data [low, high] to pixels [start, end]."""

    def __init__(self, low: float, high: float, start: float, end: float) -> None:
        if not (high > low):
            low, high = low - 1.0, low + 1.0
        self.low, self.high, self.start, self.end = low, high, start, end

    def __call__(self, value: float) -> float:
        return self.start + (value - self.low) / (self.high - self.low) * (self.end - self.start)


def _padded(values: Sequence[float], share: float = 0.08) -> tuple[float, float]:
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return -1.0, 1.0
    low, high = min(finite), max(finite)
    pad = share * (high - low) if high > low else max(abs(high), 1e-3) * share
    return low - pad, high + pad


def _text(x: float, y: float, text: str, size: int = 12, anchor: str = "start", fill: str = INK, extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}" {FONT}{extra}>'
            f"{escape(text)}</text>")


def _svg(width: int, height: int, title: str, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>' + "".join(body) + "</svg>")


def forest_svg(result: AuditResult, width: int = 860) -> str:
    """The forest plot of ΔGSR to the perfect run (see the module docstring)."""
    rows = [a for a in result.systems.values() if a.kind != PERFECT]
    alpha = result.inference.alpha
    label_width, note_width, top, row_height = 150, 250, 50, 24
    height = top + row_height * max(1, len(rows)) + 44
    summaries = [a.summary() for a in rows]
    # the interval drawn is simultaneous over the systems (Bonferroni), as the filled marks are corrected over them
    for audit, s in zip(rows, summaries):
        vs = audit.vs_perfect
        s["delta_gsr_ci_low"], s["delta_gsr_ci_high"] = ((vs.simultaneous_low, vs.simultaneous_high) if vs is not None
                                                         else (float("nan"), float("nan")))
    low, high = _padded([v for s in summaries for v in (s["delta_gsr_ci_low"], s["delta_gsr_ci_high"], s["delta_gsr"])] + [0.0])
    x = Scale(low, high, label_width, width - note_width)
    bottom = top + row_height * max(1, len(rows))
    body = [_text(label_width, 16, f"ΔGSR = GSR − GSR(perfect), simultaneous CIs; filled: differs at alpha {alpha:g}", 13,
                  extra=' font-weight="600"')]
    for tick in nice_ticks(low, high):
        body.append(f'<line x1="{x(tick):.1f}" y1="{top - 6}" x2="{x(tick):.1f}" y2="{bottom}" stroke="{GRID}"/>')
        body.append(_text(x(tick), bottom + 16, f"{tick:+g}" if tick else "0", 11, "middle", MUTED))
    body.append(f'<line x1="{x(0.0):.1f}" y1="{top - 10}" x2="{x(0.0):.1f}" y2="{bottom}" stroke="{INK}" stroke-width="1.5"/>')
    body.append(_text(x(0.0), top - 14, "perfect run", 11, "middle", MUTED))
    body.append(_text(label_width, bottom + 32, "← less reinforcement", 11, "start", MUTED))
    body.append(_text(width - note_width, bottom + 32, "more reinforcement →", 11, "end", MUTED))
    for i, (audit, s) in enumerate(zip(rows, summaries)):
        y = top + row_height * i + row_height / 2
        p = s["delta_gsr_p_adjusted"]
        filled = audit.delta_gsr_decision == DIFFERS
        colour = MUTED if audit.kind == RANDOM else ACCENT
        body.append(_text(label_width - 10, y + 4, audit.name if len(audit.name) <= 22 else audit.name[:21] + "…", 12, "end",
                          MUTED if audit.kind == RANDOM else INK))
        if math.isfinite(s["delta_gsr_ci_low"]) and math.isfinite(s["delta_gsr_ci_high"]):
            body.append(f'<line x1="{x(s["delta_gsr_ci_low"]):.1f}" y1="{y:.1f}" x2="{x(s["delta_gsr_ci_high"]):.1f}" y2="{y:.1f}" '
                        f'stroke="{colour}" stroke-width="2"/>')
        if math.isfinite(s["delta_gsr"]):
            body.append(f'<circle cx="{x(s["delta_gsr"]):.1f}" cy="{y:.1f}" r="5" fill="{colour if filled else "#fff"}" '
                        f'stroke="{colour}" stroke-width="2" data-system="{escape(audit.name)}"/>')
        note = f"{fixed(s['delta_gsr'], sign=True)} [{fixed(s['delta_gsr_ci_low'], sign=True)}, {fixed(s['delta_gsr_ci_high'], sign=True)}]"
        if math.isfinite(p):
            note += f"  p_adj {p:.3f}"
        body.append(_text(width - note_width + 12, y + 4, note, 11, "start", MUTED))
    return _svg(width, height, "Forest plot: each system's GSR minus the perfect run's, with CIs simultaneous over the systems",
                body)


def tradeoff_svg(result: AuditResult, width: int = 860, height: int = 440) -> str:
    """The trade-off plot of GSR against the first effectiveness measure (see the module docstring)."""
    frame = result.tradeoff
    measure = result.measures[0] if result.measures else ""
    if frame is None or frame.empty:
        return _svg(width, 60, "Trade-off plot", [_text(10, 30, "no audited system to place", 12)])
    letters = result.letters
    points = []
    for name, row in frame.iterrows():
        audit = result.systems[name]
        m_low, m_high = audit.measure_ci.get(measure, (math.nan, math.nan))
        points.append((name, row.gsr, audit.gsr.ci_low, audit.gsr.ci_high, row.measure, m_low, m_high, bool(row.on_front), row.front_share))
    references = [(a.name, a.gsr.slope) for a in result.systems.values() if a.kind in (PERFECT, RANDOM) and math.isfinite(a.gsr.slope)]
    left, right, top, bottom = 70, 24, 48, 52
    x_low, x_high = _padded([v for p in points for v in p[1:4]] + [g for _, g in references])
    y_low, y_high = _padded([v for p in points for v in p[4:7]])
    x = Scale(x_low, x_high, left, width - right)
    y = Scale(y_low, y_high, height - bottom, top)
    body = [_text(left, 16, f"GSR against {measure} with 95% CIs; line: the Pareto front (lower GSR, higher {measure})", 13,
                  extra=' font-weight="600"'),
            _text(left, 34, "label: the system's letter and its share of bootstrap resamples on the front", 12, fill=MUTED)]
    for tick in nice_ticks(x_low, x_high, 6):
        body.append(f'<line x1="{x(tick):.1f}" y1="{top}" x2="{x(tick):.1f}" y2="{height - bottom}" stroke="{GRID}"/>')
        body.append(_text(x(tick), height - bottom + 16, f"{tick:+g}" if tick else "0", 11, "middle", MUTED))
    for tick in nice_ticks(y_low, y_high, 5):
        body.append(f'<line x1="{left}" y1="{y(tick):.1f}" x2="{width - right}" y2="{y(tick):.1f}" stroke="{GRID}"/>')
        body.append(_text(left - 6, y(tick) + 4, f"{tick:g}", 11, "end", MUTED))
    body.append(_text((left + width - right) / 2, height - 14, "GSR (lower: less stereotype reinforcement)", 12, "middle"))
    body.append(_text(16, (top + height - bottom) / 2, measure, 12, "middle",
                      extra=f' transform="rotate(-90 16 {(top + height - bottom) / 2:.1f})"'))
    for name, gsr in references:
        body.append(f'<line x1="{x(gsr):.1f}" y1="{top}" x2="{x(gsr):.1f}" y2="{height - bottom}" stroke="{MUTED}" '
                    f'stroke-dasharray="5 4" data-reference="{escape(name)}"/>')
        body.append(_text(x(gsr) + 4, top + 12, f"{name} run", 11, "start", MUTED))
    front = sorted((p for p in points if p[7]), key=lambda p: p[1])
    if len(front) > 1:
        path = " ".join(f"{x(p[1]):.1f},{y(p[4]):.1f}" for p in front)
        body.append(f'<polyline points="{path}" fill="none" stroke="{FRONT}" stroke-width="1.5"/>')
    # labels avoid each other and every point (a point is a 12 px wide obstacle at its centre's height)
    placed: list[tuple[float, float, float]] = [(x(p[1]) - 6, y(p[4]) + 4, 12) for p in points
                                                if math.isfinite(p[1]) and math.isfinite(p[4])]
    for name, gsr, g_low, g_high, value, m_low, m_high, on, share in points:
        if not (math.isfinite(gsr) and math.isfinite(value)):
            continue
        colour = FRONT if on else ACCENT
        if math.isfinite(g_low) and math.isfinite(g_high):
            body.append(f'<line x1="{x(g_low):.1f}" y1="{y(value):.1f}" x2="{x(g_high):.1f}" y2="{y(value):.1f}" stroke="{colour}" '
                        'stroke-opacity="0.45"/>')
        if math.isfinite(m_low) and math.isfinite(m_high):
            body.append(f'<line x1="{x(gsr):.1f}" y1="{y(m_low):.1f}" x2="{x(gsr):.1f}" y2="{y(m_high):.1f}" stroke="{colour}" '
                        'stroke-opacity="0.45"/>')
        body.append(f'<circle cx="{x(gsr):.1f}" cy="{y(value):.1f}" r="4.5" fill="{colour}" data-system="{escape(name)}"/>')
        label = letters.get(name, name) + (f" {100 * share:.0f}%" if math.isfinite(share) else "")
        lx, ly = _free_spot(placed, x(gsr) + 7, y(value) - 6, 7.5 * len(label))
        body.append(_text(lx, ly, label, 11, "start", colour))
    return _svg(width, height, f"Trade-off plot: GSR against {measure} with CIs and the Pareto front", body)


def _free_spot(placed: list[tuple[float, float, float]], x: float, y: float, width: float) -> tuple[float, float]:
    """A label position near (x, y) that overlaps no label placed so far (tries below, then above)."""
    for shift in (0, 13, -13, 26, -26, 39, -39):
        candidate = y + shift
        if all(abs(candidate - py) >= 12 or x + width < px or x > px + pw for px, py, pw in placed):
            placed.append((x, candidate, width))
            return x, candidate
    placed.append((x, y, width))
    return x, y
