"""Where things go on the page, in inches, shared by the HTML and PNG renderers.

Text widths are estimated from character counts (the renderers use a sans-serif font at the
sizes below), so a long belief widens the page rather than overflowing it.
"""

from __future__ import annotations

import itertools
import textwrap
from dataclasses import dataclass

from .layout import Lane, Span, Storyboard

__all__ = [
    "CAPTION_LINES",
    "COLOURS",
    "FONT",
    "PANEL_NOTE",
    "Geometry",
    "away",
    "measure",
    "text_width",
    "wrap",
]

FONT = {"title": 13.0, "name": 11.0, "number": 9.0, "caption": 7.0, "belief": 8.5, "key": 8.0}
"""Font sizes in points."""

COLOURS = {
    "ink": "#111827",
    "muted": "#6b7280",
    "faint": "#e5e7eb",
    "false": "#c81e1e",
    "acted": "#111827",
    "perceived": "#2563eb",
    "missed": "#9ca3af",
    "outdating": "#c81e1e",
    "changed": "#7c3aed",
    "rooms": ("#dbeafe", "#dcfce7", "#fef3c7", "#fce7f3", "#ede9fe", "#cffafe", "#fee2e2"),
    "room_edges": ("#93c5fd", "#86efac", "#fcd34d", "#f9a8d4", "#c4b5fd", "#67e8f9", "#fca5a5"),
}

PANEL_NOTE = "✗ false (red)   ✓ true   indented: what they think others think"
"""The line under the beliefs panel's heading."""
CAPTION_LINES = 3
"""At most this many lines of caption under an event's number."""

_CHAR = 0.6 / 72  # average sans-serif glyph width per point of font size, in inches
_INDENT = 0.22
_LINE = 0.2
_PAD = 0.12
_BAND = 0.3
_COL = 0.8
_MARGIN = 0.3


def text_width(text: str, size: float) -> float:
    """Estimated width of ``text`` at ``size`` points, in inches."""
    return len(text) * size * _CHAR


def wrap(text: str, width: float, size: float, lines: int = 2) -> list[str]:
    """``text`` wrapped to ``width`` inches, at most ``lines`` lines (the last one cut with …)."""
    chars = max(4, int(width / (size * _CHAR)))
    out = textwrap.wrap(text, chars, break_on_hyphens=False) or [""]
    if len(out) > lines:
        out = out[:lines]
        out[-1] = out[-1][: chars - 1].rstrip() + "…"
    return out


@dataclass(frozen=True)
class Geometry:
    """Positions in inches; y grows downwards."""

    width: float
    height: float
    x0: float
    """The left edge of the timeline (time 0.5)."""
    col: float
    """The width of one event column."""
    header_top: float
    lane_tops: tuple[float, ...]
    lane_heights: tuple[float, ...]
    panel_x: float
    key_top: float
    key_columns: int
    key_col_width: float
    end: float
    """The last event position (n + 0.5)."""
    line: float = _LINE
    pad: float = _PAD
    band: float = _BAND
    indent: float = _INDENT
    margin: float = _MARGIN

    def x(self, t: float) -> float:
        """The x of event position ``t`` (event t's column centre)."""
        return self.x0 + (t - 0.5) * self.col

    def band_y(self, i: int) -> float:
        """The centre line of lane ``i``'s band and marks."""
        return self.lane_tops[i] + self.pad + self.band / 2

    def belief_y(self, i: int, k: int) -> float:
        """The baseline-centre of lane ``i``'s ``k``-th belief line."""
        return self.lane_tops[i] + self.pad + self.line * (k + 0.5)


def away(spans: tuple[Span, ...], end: float) -> list[tuple[float, float]]:
    """The stretches after an actor's first appearance when it is in no room."""
    gaps = [(a.end, b.start) for a, b in itertools.pairwise(spans) if b.start > a.end]
    if spans and spans[-1].end < end:
        gaps.append((spans[-1].end, end))
    return gaps


def _lane_height(lane: Lane) -> float:
    marks = _BAND + (0.3 if lane.kind == "reality" else 0.0)
    return 2 * _PAD + max(marks, _LINE * len(lane.beliefs))


def measure(board: Storyboard) -> Geometry:
    """Lay ``board`` out on a page sized to its content."""
    n = max(len(board.events), 1)
    name_w = max([text_width(lane.name, FONT["name"]) for lane in board.lanes] + [0.6]) + 0.3
    x0 = _MARGIN + name_w
    panel_x = x0 + n * _COL + 0.35
    beliefs = [b for lane in board.lanes for b in lane.beliefs]
    panel_w = max(
        [b.indent * _INDENT + text_width(b.render(), FONT["belief"]) for b in beliefs]
        + [text_width(PANEL_NOTE, FONT["caption"])]
    )
    width = panel_x + panel_w + _MARGIN
    header_top = _MARGIN + 0.45
    top = header_top + 0.25 + CAPTION_LINES * 0.13 + 0.1
    tops, heights = [], []
    for lane in board.lanes:
        tops.append(top)
        heights.append(_lane_height(lane))
        top += heights[-1]
    key_top = top + 0.25
    sentences = [f"{c.t}. {c.sentence}" for c in board.events]
    col_w = max([text_width(s, FONT["key"]) for s in sentences] + [2.0]) + 0.3
    usable = width - 2 * _MARGIN
    columns = max(1, min(3, int(usable // col_w)))
    if columns == 1:
        col_w = usable
    rows = -(-len(sentences) // columns)
    height = key_top + 0.35 + rows * 0.18 + _MARGIN
    return Geometry(
        width=width,
        height=height,
        x0=x0,
        col=_COL,
        header_top=header_top,
        lane_tops=tuple(tops),
        lane_heights=tuple(heights),
        panel_x=panel_x,
        key_top=key_top,
        key_columns=columns,
        key_col_width=col_w,
        end=n + 0.5,
    )
