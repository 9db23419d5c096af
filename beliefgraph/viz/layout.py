"""What a picture of a story shows, independent of how it is drawn.

A ``Storyboard`` is the story laid out as lanes over time: a *reality* lane with the world's
changes, then one lane per actor with where it was (room spans), which events it perceived,
which world-changing events it missed, and the beliefs it holds at the end (nested beliefs
indented under the holder). The HTML and PNG renderers draw the same storyboard, so they
cannot disagree about what the story means.

Limits: the end-of-story beliefs are listed up to ``max_order`` only (a fourth-order story
with five actors has 85 holder chains per actor); the lanes show rooms, not positions inside a
room; hypothetical events added by questions are not part of the story and are not drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from beliefgraph.errors import ConfigurationError
from beliefgraph.models import Belief, Event

if TYPE_CHECKING:
    from beliefgraph.graph import BeliefGraph

__all__ = ["BeliefLine", "EventColumn", "Lane", "Mark", "Span", "Storyboard", "storyboard"]

MarkKind = Literal["acted", "perceived", "missed", "outdating", "changed"]
Status = Literal["true", "false", "unknown", "heading"]


@dataclass(frozen=True, slots=True)
class EventColumn:
    """One event: a column of the timeline."""

    t: int
    """The time step (the event's id)."""
    sentence: str
    """The sentence it was read from."""
    label: str
    """A short caption for the column header (``ball → box``)."""
    cite: str
    """The story reference (``line 3`` or ``sentence 3``)."""
    perceivers: tuple[str, ...]
    """Who perceived it."""
    changed: bool
    """Whether it changed the world."""


@dataclass(frozen=True, slots=True)
class Span:
    """An actor is in ``room`` between times ``start`` and ``end`` (event positions)."""

    start: float
    end: float
    room: str


@dataclass(frozen=True, slots=True)
class Mark:
    """What one event was to one lane."""

    t: int
    kind: MarkKind
    """``acted`` (it did it), ``perceived``, ``missed`` (a world change it did not see),
    ``outdating`` (a missed change that left one of its listed beliefs outdated), or
    ``changed`` (the reality lane: the world changed here)."""
    note: str
    """Tooltip text, and the caption next to the mark on the reality lane."""


@dataclass(frozen=True, slots=True)
class BeliefLine:
    """One line of a lane's end-of-story beliefs."""

    text: str
    indent: int
    """0 for the holder's own beliefs, 1 under "Anne thinks", and so on."""
    status: Status
    """``heading`` for a "<name> thinks" line; else the belief's truth status, lower case."""
    tags: tuple[str, ...] = ()
    """Short markers: ``outdated since 6``, ``told by Avery``, ``a lie``."""
    detail: str = ""
    """Every label of the belief, for a tooltip."""

    @property
    def outdated(self) -> bool:
        return any(tag.startswith("outdated") for tag in self.tags)

    def render(self) -> str:
        """The line as plain text, with a ✓ / ✗ / ? mark and its tags."""
        if self.status == "heading":
            return self.text
        mark = {"true": "✓", "false": "✗", "unknown": "?"}[self.status]
        tail = f"  ({', '.join(self.tags)})" if self.tags else ""
        return f"{mark} {self.text}{tail}"


@dataclass(frozen=True, slots=True)
class Lane:
    """One row of the picture: the reality lane or an actor's lane."""

    name: str
    kind: Literal["reality", "actor"]
    spans: tuple[Span, ...]
    marks: tuple[Mark, ...]
    beliefs: tuple[BeliefLine, ...]


@dataclass(frozen=True, slots=True)
class Storyboard:
    """A story laid out for drawing: event columns and lanes."""

    title: str
    events: tuple[EventColumn, ...]
    lanes: tuple[Lane, ...]
    max_order: int
    rooms: tuple[str, ...] = field(default=())
    """Every room an actor is in, in order of first appearance (renderers colour by it)."""

    @property
    def actors(self) -> tuple[str, ...]:
        return tuple(lane.name for lane in self.lanes if lane.kind == "actor")

    def to_text(self) -> str:
        """The storyboard as plain text: what a screen reader or a test reads."""
        out = [self.title, ""]
        out += [f"{c.t:>3}. {c.sentence}" for c in self.events]
        for lane in self.lanes:
            out += ["", lane.name]
            out += [f"  {'  ' * b.indent}{b.render()}" for b in lane.beliefs]
        return "\n".join(out)


def storyboard(
    graph: BeliefGraph,
    *,
    max_order: int = 2,
    all_beliefs: bool = False,
    title: str | None = None,
) -> Storyboard:
    """Lay ``graph`` out as lanes over time, with each lane's beliefs at the end.

    Parameters
    ----------
    graph : BeliefGraph
        A tracked story.
    max_order : int
        The deepest belief listed under each actor (1: only its own beliefs).
    all_beliefs : bool
        Also list the beliefs the lanes already draw: where the actors are and what they did
        (off by default, so the lists keep to objects, contents and facts).
    title : str, optional
        A heading; by default the first sentence of the story.

    Returns
    -------
    Storyboard

    Raises
    ------
    ConfigurationError
        When ``max_order`` is below 1.

    Examples
    --------
    >>> from beliefgraph import track
    >>> g = track("Sally and Anne are in the room. Sally puts the ball in the basket. "
    ...           "Sally goes out. Anne moves the ball to the box.")
    >>> board = storyboard(g)
    >>> board.actors
    ('Sally', 'Anne')
    >>> [line.render() for line in board.lanes[1].beliefs]
    ['✗ the ball is in the basket  (outdated since 4)', 'Anne thinks', '✗ the ball is in the basket  (outdated since 4)']
    """  # noqa: E501
    if max_order < 1:
        raise ConfigurationError(f"max_order must be at least 1 to show beliefs, got {max_order}")
    steps = graph.timeline.steps
    end = graph.end
    cast = [a for a in graph.actors if any(a in s.perceivers for s in steps)]
    drawn = set() if all_beliefs else _drawn_variables(graph, cast)
    events = tuple(
        EventColumn(
            t=s.event.id,
            sentence=s.event.sentence.strip(),
            label=_caption(s.event),
            cite=s.event.cite().split(" (")[0],
            perceivers=tuple(sorted(s.perceivers)),
            changed=bool(s.changed - drawn),
        )
        for s in steps
    )
    held = [
        b for b in graph.beliefs(max_order=max_order, at=end) if b.proposition.variable not in drawn
    ]
    rooms: list[str] = []
    lanes = [_reality_lane(graph, [b for b in held if not b.holders], drawn)]
    for actor in cast:
        own = [b for b in held if b.holders[:1] == (actor,)]
        since = {id(b): _outdated_since(graph, b) for b in own}
        spans = _spans(graph, actor)
        rooms += [s.room for s in spans if s.room not in rooms]
        lanes.append(
            Lane(
                name=actor,
                kind="actor",
                spans=spans,
                marks=_marks(graph, actor, drawn, {t for t in since.values() if t}),
                beliefs=_belief_lines(actor, own, cast, since),
            )
        )
    first = steps[0].event.sentence.strip() if steps else "an empty story"
    return Storyboard(
        title=title or f"Who believes what: {first}",
        events=events,
        lanes=tuple(lanes),
        max_order=max_order,
        rooms=tuple(rooms),
    )


# -- helpers ------------------------------------------------------------------------------------
def _caption(e: Event) -> str:
    """A few words for a column header."""
    who = " & ".join(e.actors) if len(e.actors) <= 2 else f"{len(e.actors)} people"
    one = len(e.actors) == 1
    if e.kind == "enter":
        verb = "enters" if one else "enter"
        return f"{who} {verb}" + (f" {e.room}" if e.room and e.room != "room" else "")
    if e.kind == "exit":
        return f"{who} {'leaves' if one else 'leave'}"
    if e.kind == "move" and e.obj and e.destination:
        return f"{e.obj} → {e.destination}"
    if e.kind == "tell":
        return f"{who} tells {' & '.join(e.hearers) or 'everyone'}"
    if e.kind == "stay":
        return f"{who} {'stays' if one else 'stay'}"
    if e.proposition is not None:
        return e.proposition.render().removeprefix("the ")
    return e.kind


def _spans(graph: BeliefGraph, actor: str) -> tuple[Span, ...]:
    """Where ``actor`` is over time: after event t it is in ``rooms[t]`` until event t + 1."""
    tl = graph.timeline
    n = graph.end
    where = [tl.initial_rooms.get(actor)] + [s.rooms.get(actor) for s in tl.steps]
    spans: list[Span] = []
    for t, room in enumerate(where):
        if room is None:
            continue
        start = 0.5 if t == 0 else float(t)
        stop = n + 0.5 if t == n else float(t + 1)
        if spans and spans[-1].room == room and spans[-1].end == start:
            spans[-1] = Span(spans[-1].start, stop, room)
        else:
            spans.append(Span(start, stop, room))
    return tuple(spans)


def _drawn_variables(graph: BeliefGraph, cast: list[str]) -> set[tuple[str, ...]]:
    """Variables the lanes already show: where actors and containers are, what was done."""
    rooms = set(graph.timeline.container_rooms.values())
    return {
        var
        for var, p in graph.timeline.propositions.items()
        if p.content_type == "Action/Event"
        or (p.relation == "in" and (p.subject in cast or p.value in rooms))
    }


def _marks(
    graph: BeliefGraph, actor: str, drawn: set[tuple[str, ...]], outdating: set[int]
) -> tuple[Mark, ...]:
    marks: list[Mark] = []
    for s in graph.timeline.steps:
        e = s.event
        if actor in s.perceivers:
            kind: MarkKind = "acted" if actor in e.actors else "perceived"
            verb = "did this" if kind == "acted" else "perceived this"
            marks.append(Mark(e.id, kind, f"{e.id}. {e.sentence.strip()} ({actor} {verb})"))
        elif e.id in outdating:
            note = f"{e.id}. {e.sentence.strip()} ({actor} missed this: a belief is now outdated)"
            marks.append(Mark(e.id, "outdating", note))
        elif s.changed - drawn:
            note = f"{e.id}. {e.sentence.strip()} ({actor} did not see this change)"
            marks.append(Mark(e.id, "missed", note))
    return tuple(marks)


def _reality_lane(graph: BeliefGraph, facts: list[Belief], drawn: set[tuple[str, ...]]) -> Lane:
    marks = []
    for s in graph.timeline.steps:
        if not s.changed - drawn:
            continue
        values = [
            f"{var[0]} in {s.world[var]}"
            if len(var) == 2 and var in s.world
            else graph.timeline.propositions[var].render().removeprefix("the ")
            for var in sorted(s.changed - drawn)
            if var in s.world
        ]
        note = "; ".join(values) or "changed"
        marks.append(Mark(s.event.id, "changed", note))
    lines = tuple(
        BeliefLine(
            text=b.proposition.render(),
            indent=0,
            status="true",
            tags=(f"since {b.start}",) if b.start else (),
            detail=_detail(b),
        )
        for b in facts
    )
    return Lane(name="reality", kind="reality", spans=(), marks=tuple(marks), beliefs=lines)


def _belief_lines(
    actor: str, beliefs: list[Belief], cast: list[str], since: dict[int, int | None]
) -> tuple[BeliefLine, ...]:
    """The holder's beliefs, then each nested chain under a "<name> thinks" heading."""
    rank = {a: i for i, a in enumerate(cast)}

    def key(b: Belief) -> tuple[int, ...]:
        return tuple(rank.get(h, len(rank)) for h in b.holders)

    lines: list[BeliefLine] = []
    shown: set[tuple[str, ...]] = {(actor,)}
    for b in sorted(beliefs, key=key):  # stable: story order within a chain
        chain = b.holders
        for depth in range(2, len(chain) + 1):
            prefix = chain[:depth]
            if prefix not in shown:
                shown.add(prefix)
                lines.append(BeliefLine(f"{prefix[-1]} thinks", depth - 2, "heading"))
        lines.append(
            BeliefLine(
                text=b.proposition.render(),
                indent=len(chain) - 1,
                status=b.truth_status.lower(),  # type: ignore[arg-type]
                tags=_tags(b, since.get(id(b))),
                detail=_detail(b),
            )
        )
    return tuple(lines)


def _outdated_since(graph: BeliefGraph, b: Belief) -> int | None:
    """For a Memory / Temporal belief, the first change to its variable the chain missed.

    None when nothing changed unseen: the belief is remembered, not outdated.
    """
    if b.mental_source != "Memory" and b.context != "Temporal":
        return None
    members = set(b.holders)
    var = b.proposition.variable
    first = b.provenance[0] if b.provenance else b.start
    for step in graph.timeline.steps[first:]:
        if var in step.changed and not members <= step.perceivers:
            return step.event.id
    return None  # kept from memory, but nothing changed unseen


def _tags(b: Belief, outdated_since: int | None) -> tuple[str, ...]:
    tags: list[str] = []
    if outdated_since is not None:
        tags.append(f"outdated since {outdated_since}")
    if b.mental_source == "Testimony" and b.source_actor:
        tags.append(f"told by {b.source_actor}")
    if b.context == "Deceptive":
        tags.append("a lie")
    return tuple(tags)


def _detail(b: Belief) -> str:
    who = " believes ".join(b.holders) + " believes " if b.holders else "In reality, "
    parts = [
        f"order {b.order}",
        f"truth {b.truth_status}",
        f"access {b.knowledge_access}",
        f"source {b.mental_source}",
        f"context {b.context}",
    ]
    if b.trust is not None:
        parts.append(f"trust {b.trust:.2f}")
    if b.provenance:
        parts.append("from event " + ", ".join(map(str, b.provenance)))
    return f"{who}{b.proposition.render()}: " + "; ".join(parts)
