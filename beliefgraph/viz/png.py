"""The storyboard as a static PNG, drawn with matplotlib (no display needed).

matplotlib is imported when a PNG is asked for, so ``import beliefgraph`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from beliefgraph.errors import ConfigurationError

from .geometry import (
    CAPTION_LINES,
    COLOURS,
    FONT,
    PANEL_NOTE,
    Geometry,
    away,
    measure,
    text_width,
    wrap,
)
from .layout import Storyboard

__all__ = ["to_png"]

_MARKERS: dict[str, dict[str, Any]] = {  # matplotlib marker, area, fill, edge
    kind: {"marker": marker, "s": size, "facecolors": face, "edgecolors": edge}
    for kind, marker, size, face, edge in (
        ("acted", "D", 42, COLOURS["acted"], "white"),
        ("perceived", "o", 46, COLOURS["perceived"], "white"),
        ("missed", "o", 40, "white", COLOURS["missed"]),
        ("outdating", "X", 80, COLOURS["outdating"], "white"),
        ("changed", "s", 34, COLOURS["changed"], "white"),
    )
}
_KEY = (
    ("acted", "did it"),
    ("perceived", "perceived it"),
    ("missed", "missed a change"),
    ("outdating", "missed a change: belief now outdated"),
    ("changed", "the world changed"),
)


def to_png(board: Storyboard, path: str | Path, *, dpi: int = 150) -> Path:
    """Draw ``board`` to a PNG file at ``path``.

    Raises
    ------
    ConfigurationError
        When matplotlib is not installed.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.patches import FancyBboxPatch
    except ImportError:  # pragma: no cover - matplotlib is a dependency
        raise ConfigurationError("PNG output needs matplotlib: pip install matplotlib") from None
    g = measure(board)
    fig = Figure(figsize=(g.width, g.height), dpi=dpi, facecolor="white")
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, g.width)
    ax.set_ylim(g.height, 0)
    ax.axis("off")
    text = _Text(ax)
    text(g.margin, g.margin + 0.1, board.title, size=FONT["title"], weight="bold")
    _header(board, g, text, ax)
    rooms = {room: i % len(COLOURS["rooms"]) for i, room in enumerate(board.rooms)}
    for i, lane in enumerate(board.lanes):
        top, y = g.lane_tops[i], g.band_y(i)
        ax.plot([g.margin, g.width - g.margin], [top, top], color=COLOURS["faint"], lw=0.8)
        name = "Reality" if lane.kind == "reality" else lane.name
        style = "italic" if lane.kind == "reality" else "normal"
        text(g.margin, y, name, size=FONT["name"], weight="bold", style=style, va="center")
        for span in lane.spans:
            c = rooms[span.room]
            x, w = g.x(span.start), g.x(span.end) - g.x(span.start)
            ax.add_patch(
                FancyBboxPatch(
                    (x + 0.02, y - g.band / 2),
                    w - 0.04,
                    g.band,
                    boxstyle="round,pad=0,rounding_size=0.08",
                    facecolor=COLOURS["rooms"][c],
                    edgecolor=COLOURS["room_edges"][c],
                    lw=0.8,
                    zorder=1,
                )
            )
            if w > 0.9:
                text(x + 0.1, y - g.band / 2 + 0.07, span.room, size=6.5, color=COLOURS["muted"])
        for a, b in away(lane.spans, g.end):
            ax.plot(
                [g.x(a) + 0.08, g.x(b) - 0.08],
                [y, y],
                color=COLOURS["missed"],
                lw=1,
                ls=(0, (3, 3)),
                zorder=1,
            )
            text(
                g.x((a + b) / 2),
                y - g.band / 2 + 0.02,
                "away",
                size=6.5,
                ha="center",
                color=COLOURS["muted"],
                style="italic",
            )
        for m in lane.marks:
            ax.scatter([g.x(m.t)], [y], zorder=3, linewidths=1.2, **_MARKERS[m.kind])
            if m.kind == "changed":
                for k, part in enumerate(wrap(m.note, g.col - 0.06, FONT["caption"])):
                    text(
                        g.x(m.t),
                        y + 0.22 + k * 0.13,
                        part,
                        size=FONT["caption"],
                        ha="center",
                        color=COLOURS["changed"],
                    )
        for k, b in enumerate(lane.beliefs):
            colour = {"false": COLOURS["false"], "unknown": COLOURS["muted"]}.get(
                b.status, COLOURS["ink"]
            )
            text(
                g.panel_x + b.indent * g.indent,
                g.belief_y(i, k),
                b.render(),
                size=FONT["belief"],
                color=COLOURS["muted"] if b.status == "heading" else colour,
                style="italic" if b.outdated or b.status == "heading" else "normal",
                weight="bold" if b.status == "false" else "normal",
                va="center",
            )
    bottom = g.lane_tops[-1] + g.lane_heights[-1]
    ax.plot([g.margin, g.width - g.margin], [bottom, bottom], color=COLOURS["faint"], lw=0.8)
    _key(board, g, text, ax)
    path = Path(path)
    fig.savefig(path, dpi=dpi, facecolor="white")
    return path


class _Text:
    """``ax.text`` with the page's defaults: left-aligned, top-anchored, dark ink."""

    def __init__(self, ax: Any) -> None:
        self.ax = ax

    def __call__(self, x: float, y: float, s: str, *, size: float, **kw: Any) -> None:
        kw.setdefault("va", "top")
        kw.setdefault("ha", "left")
        kw.setdefault("color", COLOURS["ink"])
        self.ax.text(x, y, s, fontsize=size, family="DejaVu Sans", zorder=4, **kw)


def _header(board: Storyboard, g: Geometry, text: _Text, ax: Any) -> None:
    top = g.header_top
    bottom = g.lane_tops[-1] + g.lane_heights[-1]
    for c in board.events:
        x = g.x(c.t)
        ax.plot([x, x], [top + 0.55, bottom], color=COLOURS["faint"], lw=0.6, zorder=0)
        text(x, top, str(c.t), size=FONT["number"], weight="bold", ha="center")
        for k, part in enumerate(wrap(c.label, g.col - 0.06, FONT["caption"], CAPTION_LINES)):
            text(
                x,
                top + 0.2 + k * 0.13,
                part,
                size=FONT["caption"],
                ha="center",
                color=COLOURS["muted"],
            )
    text(g.panel_x, top, "Beliefs at the end", size=FONT["number"], weight="bold")
    text(
        g.panel_x,
        top + 0.2,
        PANEL_NOTE,
        size=FONT["caption"],
        color=COLOURS["muted"],
    )


def _key(board: Storyboard, g: Geometry, text: _Text, ax: Any) -> None:
    x, y = g.margin, g.key_top
    for kind, label in _KEY:
        ax.scatter([x + 0.06], [y + 0.06], zorder=3, linewidths=1.2, **_MARKERS[kind])
        text(x + 0.18, y, label, size=FONT["key"], color=COLOURS["muted"])
        x += 0.4 + text_width(label, FONT["key"])
    text(x + 0.1, y, "shaded: in the room", size=FONT["key"], color=COLOURS["muted"])
    rows = -(-len(board.events) // g.key_columns)
    for k, c in enumerate(board.events):
        col, row = divmod(k, rows)
        text(
            g.margin + col * g.key_col_width,
            g.key_top + 0.3 + row * 0.18,
            f"{c.t:>2}. {c.sentence}",
            size=FONT["key"],
        )
