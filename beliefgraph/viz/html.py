"""The storyboard as one self-contained HTML page with an embedded SVG.

No JavaScript library and no network: hovering a mark, a column or a belief shows its
sentence or labels (SVG ``<title>`` tooltips), and hovering a sentence in the list highlights
its column (a few lines of inline script). Every text is escaped.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

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
from .layout import Lane, Mark, Storyboard

__all__ = ["to_html"]

_PX = 96.0  # CSS pixels per inch
_ZOOM = 1.25  # shown a little larger than the PNG's inches, for a screen

_KEY = (
    ("acted", "did it"),
    ("perceived", "perceived it"),
    ("missed", "missed a change"),
    ("outdating", "missed a change: a belief is now outdated"),
    ("changed", "the world changed"),
)

_STYLE = """
body { font-family: "DejaVu Sans", Verdana, sans-serif; color: #111827; margin: 1.5rem; }
h1 { font-size: 1.25rem; margin: 0 0 .75rem; }
svg { max-width: 100%; height: auto; }
svg text { font-family: "DejaVu Sans", Verdana, sans-serif; white-space: pre; }
.column .hit { fill: transparent; }
.column.hl .hit, .column:hover .hit { fill: #fde68a; fill-opacity: .35; }
.belief:hover text { text-decoration: underline; }
ol.sentences { columns: 2 24rem; font-size: .85rem; line-height: 1.5; padding-left: 2rem; }
ol.sentences li.hl { background: #fde68a; }
.key { font-size: .8rem; color: #6b7280; margin: .5rem 0 1rem; }
"""

_SCRIPT = """
for (const el of document.querySelectorAll('[data-t]')) {
  const t = el.dataset.t;
  const all = () => document.querySelectorAll('[data-t="' + t + '"]');
  el.addEventListener('mouseenter', () => all().forEach(x => x.classList.add('hl')));
  el.addEventListener('mouseleave', () => all().forEach(x => x.classList.remove('hl')));
}
"""


def to_html(board: Storyboard, path: str | Path | None = None) -> str:
    """The page for ``board``; written to ``path`` too when one is given.

    Examples
    --------
    >>> from beliefgraph import track
    >>> from beliefgraph.viz import storyboard
    >>> page = to_html(storyboard(track("Ann and Bo are in the hall. Ann puts the key in the "
    ...                                 "box. Ann goes out. Bo moves the key to the bag.")))
    >>> page.startswith("<!DOCTYPE html>") and "<svg" in page and ">Bo<" in page
    True
    """
    g = measure(board)
    svg = _svg(board, g)
    items = "\n".join(
        f'<li value="{c.t}" data-t="{c.t}" title="perceived by {escape(", ".join(c.perceivers))}">'
        f"{escape(c.sentence)}</li>"
        for c in board.events
    )
    page = (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(board.title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        f"<h1>{escape(board.title)}</h1>\n"
        f"{svg}\n"
        '<p class="key">Hover a mark, a column or a belief for details. Each lane is an actor; '
        "shading shows the room it is in. Beliefs are those held at the end of the story: "
        "red ✗ is false, <em>italic</em> is outdated (kept from memory after an unseen "
        "change); indented lines are what the actor thinks another thinks.</p>\n"
        f'<h2>The story</h2>\n<ol class="sentences">\n{items}\n</ol>\n'
        f"<script>{_SCRIPT}</script>\n</body>\n</html>\n"
    )
    if path is not None:
        Path(path).write_text(page, encoding="utf-8")
    return page


def _svg(board: Storyboard, g: Geometry) -> str:
    top = (g.header_top - 0.1) * _PX  # the page's <h1> replaces the PNG's title
    w, h = g.width * _PX, (g.key_top + 0.35) * _PX - top
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * _ZOOM:.0f}" '
        f'height="{h * _ZOOM:.0f}" viewBox="0 {top:.1f} {w:.1f} {h:.1f}" role="img" '
        f'aria-label="{escape(board.title)}">',
    ]
    bottom = g.lane_tops[-1] + g.lane_heights[-1]
    for c in board.events:
        x = g.x(c.t)
        tip = f"{c.t}. {c.sentence}\n{c.cite}; perceived by {', '.join(c.perceivers) or 'nobody'}"
        out.append(f'<g class="column" data-t="{c.t}"><title>{escape(tip)}</title>')
        out.append(
            _rect(
                x - g.col / 2, g.header_top - 0.05, g.col, bottom - g.header_top + 0.05, cls="hit"
            )
        )
        out.append(_line(x, g.header_top + 0.55, x, bottom, COLOURS["faint"], 0.6))
        out.append(
            _text(x, g.header_top + 0.12, str(c.t), FONT["number"], anchor="middle", weight="bold")
        )
        for k, part in enumerate(wrap(c.label, g.col - 0.06, FONT["caption"], CAPTION_LINES)):
            out.append(
                _text(
                    x,
                    g.header_top + 0.3 + k * 0.13,
                    part,
                    FONT["caption"],
                    anchor="middle",
                    fill=COLOURS["muted"],
                )
            )
        out.append("</g>")
    out.append(
        _text(g.panel_x, g.header_top + 0.12, "Beliefs at the end", FONT["number"], weight="bold")
    )
    out.append(
        _text(
            g.panel_x,
            g.header_top + 0.3,
            PANEL_NOTE,
            FONT["caption"],
            fill=COLOURS["muted"],
        )
    )
    rooms = {room: i % len(COLOURS["rooms"]) for i, room in enumerate(board.rooms)}
    for i, lane in enumerate(board.lanes):
        out.append(_lane(lane, i, g, rooms))
    out.append(_line(g.margin, bottom, g.width - g.margin, bottom, COLOURS["faint"], 0.8))
    x, y = g.margin, g.key_top + 0.06
    for kind, label in _KEY:
        out.append(_mark(kind, x + 0.06, y))
        out.append(_text(x + 0.18, y + 0.04, label, FONT["key"], fill=COLOURS["muted"]))
        x += 0.4 + text_width(label, FONT["key"])
    out.append(_text(x + 0.1, y + 0.04, "shaded: in the room", FONT["key"], fill=COLOURS["muted"]))
    out.append("</svg>")
    return "\n".join(out)


def _lane(lane: Lane, i: int, g: Geometry, rooms: dict[str, int]) -> str:
    top, y = g.lane_tops[i], g.band_y(i)
    out = [f'<g class="lane" data-lane="{escape(lane.name)}">']
    out.append(_line(g.margin, top, g.width - g.margin, top, COLOURS["faint"], 0.8))
    name = "Reality" if lane.kind == "reality" else lane.name
    out.append(
        _text(
            g.margin,
            y + 0.05,
            name,
            FONT["name"],
            weight="bold",
            style="italic" if lane.kind == "reality" else "normal",
        )
    )
    for span in lane.spans:
        c = rooms[span.room]
        x, w = g.x(span.start), g.x(span.end) - g.x(span.start)
        out.append(f"<g><title>{escape(lane.name)} is in the {escape(span.room)}</title>")
        out.append(
            _rect(
                x + 0.02,
                y - g.band / 2,
                w - 0.04,
                g.band,
                fill=COLOURS["rooms"][c],
                stroke=COLOURS["room_edges"][c],
                rx=0.08,
            )
        )
        if w > 0.9:
            out.append(_text(x + 0.1, y - g.band / 2 + 0.12, span.room, 6.5, fill=COLOURS["muted"]))
        out.append("</g>")
    for a, b in away(lane.spans, g.end):
        out.append(f"<g><title>{escape(lane.name)} is in no room here</title>")
        out.append(_line(g.x(a) + 0.08, y, g.x(b) - 0.08, y, COLOURS["missed"], 1, dash="3 3"))
        out.append(
            _text(
                g.x((a + b) / 2),
                y - 0.08,
                "away",
                6.5,
                anchor="middle",
                fill=COLOURS["muted"],
                style="italic",
            )
        )
        out.append("</g>")
    for m in lane.marks:
        out.append(f'<g class="mark {m.kind}" data-t="{m.t}"><title>{escape(m.note)}</title>')
        out.append(_mark(m.kind, g.x(m.t), y))
        out.append("</g>")
        if m.kind == "changed":
            out.append(_notes(m, g, y))
    for k, b in enumerate(lane.beliefs):
        colour = {
            "false": COLOURS["false"],
            "unknown": COLOURS["muted"],
            "heading": COLOURS["muted"],
        }.get(b.status, COLOURS["ink"])
        tip = f"<title>{escape(b.detail)}</title>" if b.detail else ""
        out.append(f'<g class="belief {b.status}">{tip}')
        out.append(
            _text(
                g.panel_x + b.indent * g.indent,
                g.belief_y(i, k) + 0.04,
                b.render(),
                FONT["belief"],
                fill=colour,
                weight="bold" if b.status == "false" else "normal",
                style="italic" if b.outdated or b.status == "heading" else "normal",
            )
        )
        out.append("</g>")
    out.append("</g>")
    return "\n".join(out)


def _notes(m: Mark, g: Geometry, y: float) -> str:
    return "\n".join(
        _text(
            g.x(m.t),
            y + 0.3 + k * 0.13,
            part,
            FONT["caption"],
            anchor="middle",
            fill=COLOURS["changed"],
        )
        for k, part in enumerate(wrap(m.note, g.col - 0.06, FONT["caption"]))
    )


def _mark(kind: str, x: float, y: float) -> str:
    cx, cy = x * _PX, y * _PX
    if kind == "acted":
        r = 5.5
        pts = f"{cx},{cy - r} {cx + r},{cy} {cx},{cy + r} {cx - r},{cy}"
        return f'<polygon points="{pts}" fill="{COLOURS["acted"]}" stroke="white"/>'
    if kind == "perceived":
        return (
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="5" fill="{COLOURS["perceived"]}" '
            'stroke="white"/>'
        )
    if kind == "missed":
        return (
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4.5" fill="white" '
            f'stroke="{COLOURS["missed"]}" stroke-width="1.5"/>'
        )
    if kind == "outdating":
        d = 4.5
        return (
            f'<path d="M{cx - d},{cy - d}L{cx + d},{cy + d}M{cx - d},{cy + d}L{cx + d},{cy - d}" '
            f'stroke="{COLOURS["outdating"]}" stroke-width="3" stroke-linecap="round"/>'
        )
    s = 4.5  # changed
    return (
        f'<rect x="{cx - s:.1f}" y="{cy - s:.1f}" width="{2 * s}" height="{2 * s}" '
        f'fill="{COLOURS["changed"]}"/>'
    )


def _text(
    x: float,
    y: float,
    s: str,
    size: float,
    *,
    anchor: str = "start",
    fill: str = COLOURS["ink"],
    weight: str = "normal",
    style: str = "normal",
) -> str:
    return (
        f'<text x="{x * _PX:.1f}" y="{y * _PX:.1f}" font-size="{size * _PX / 72:.1f}" '
        f'text-anchor="{anchor}" fill="{fill}" font-weight="{weight}" font-style="{style}">'
        f"{escape(s)}</text>"
    )


def _rect(
    x: float,
    y: float,
    w: float,
    h: float,
    *,
    fill: str = "none",
    stroke: str = "none",
    rx: float = 0.0,
    cls: str = "",
) -> str:
    klass = f' class="{cls}"' if cls else ""
    return (
        f'<rect{klass} x="{x * _PX:.1f}" y="{y * _PX:.1f}" width="{w * _PX:.1f}" '
        f'height="{h * _PX:.1f}" rx="{rx * _PX:.1f}" fill="{fill}" stroke="{stroke}"/>'
        if not cls
        else f'<rect{klass} x="{x * _PX:.1f}" y="{y * _PX:.1f}" width="{w * _PX:.1f}" '
        f'height="{h * _PX:.1f}"/>'
    )


def _line(
    x1: float, y1: float, x2: float, y2: float, colour: str, width: float, *, dash: str = ""
) -> str:
    dashed = f' stroke-dasharray="{dash}"' if dash else ""
    return (
        f'<line x1="{x1 * _PX:.1f}" y1="{y1 * _PX:.1f}" x2="{x2 * _PX:.1f}" y2="{y2 * _PX:.1f}" '
        f'stroke="{colour}" stroke-width="{width}"{dashed}/>'
    )
