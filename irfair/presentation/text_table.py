"""The one fixed-width text table every terminal view prints: left-aligned columns two spaces apart under a dashed
rule, trailing spaces stripped; with a width, the system names' column is cut so that lines fit."""
from __future__ import annotations

from collections.abc import Sequence

MIN_NAME = 8  # a cut system name keeps at least this many characters


def fixed_width(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int | None = None, shrink: int = 1) -> list[str]:
    """Left-aligned columns two spaces apart under a dashed rule; with ``width``, column ``shrink`` (the system
    names) is cut (ending in ``~``) so that lines fit, down to :data:`MIN_NAME` characters."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    if width is not None:
        excess = sum(widths) + 2 * (len(widths) - 1) - width
        if excess > 0:
            widths[shrink] = max(MIN_NAME, widths[shrink] - excess)

    def cut(text: str, i: int) -> str:
        return text if len(text) <= widths[i] else text[:widths[i] - 1] + "~"

    def line(cells) -> str:
        return "  ".join(cut(c, i).ljust(widths[i]) for i, c in enumerate(cells)).rstrip()

    return [line(headers), "  ".join("-" * w for w in widths)] + [line(r) for r in rows]
