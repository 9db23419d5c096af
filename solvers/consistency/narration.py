"""How the checker reads narrated places and changes: nested places, and reported happenings.

A faithful parse of ordinary prose says where a thing is in several words at once ("a belt
in a basket on the kitchen counter"), and narrates a change of the world in the same
sentence as the happening that causes it ("a monkey eats the mangoes on the branch": the
branch no longer holds them). The frame axiom and the preconditions read the replayed world
through this module so that such parses are not objected to:

- ``Places.nested(a, b)``: one place lies within the other, through where the replayed world
  puts them, the room the replay gives a container, or a possessive name ("William's lower
  stomach" is at William). A thing said to be in one and then in the other has not moved.
- ``Places.described(obj, t)``: the places one sentence gave a thing (the latest sentence
  that placed it by narration or a look, before ``t``): descriptions of one state.
- ``happenings(steps)``: per sentence, what its happenings involve (a physical action, an
  Action/Event fact, or a narrated state replacing an earlier one). A change of a thing's
  place narrated or seen in a sentence whose happening involves the thing or one of the
  two places is an event that changes the world.

Limits: the default room the replay gives a container is itself a place the container is
in, so a narrated finer place ("the basket is on the counter") refines it; two rooms the
story names are never nested (the replay knows no building), and a possessive counts only
as "X's Y" with X a name the story uses.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from beliefgraph.models import Event

    from ..perception import Step, Timeline, Value, Variable

__all__ = ["DESCRIBERS", "HAPPENING_KINDS", "Places", "happenings", "involved", "sentence_of"]

HAPPENING_KINDS = frozenset({"move", "enter", "exit", "open", "close"})
"""Event kinds that are happenings in themselves."""
DESCRIBERS = frozenset({"narrate", "observe", "label"})
"""Event kinds that describe the world rather than act on it."""

_POSSESSIVE = re.compile(r"^(?P<owner>.+?)'s? (?P<part>.+)$")
_DEPTH = 12  # places nest a few levels at most; the bound guards against cycles in a bad parse


def sentence_of(e: Event) -> int | None:
    """The sentence an event was read from, or None for an event built without its text.

    Hand-built events all default to sentence 0; only events that carry their sentence are
    known to share one.
    """
    return e.sentence_index if e.sentence.strip() else None


class Places:
    """Where the replayed story puts places, for telling nested places from moves.

    Parameters
    ----------
    timeline : Timeline
        The replayed story (its steps' worlds and the containers' rooms).
    """

    def __init__(self, timeline: Timeline) -> None:
        self.steps: list[Step] = list(timeline.steps)
        self.rooms = timeline.container_rooms
        # Per thing, the steps that changed its place, in time order: the questions below
        # look back from an event, and a long story asks them at every narrated place.
        self._placings: dict[str, list[Step]] = {}
        for step in self.steps:
            for var in step.changed:
                if len(var) == 2 and var[1] == "in":
                    self._placings.setdefault(str(var[0]), []).append(step)
        # Their event ids, kept beside them so a lookup is one bisect, not a list per query.
        self._placing_ids = {k: [s.event.id for s in v] for k, v in self._placings.items()}

    def _up(self, place: str, worlds: Sequence[Mapping[Variable, Value]]) -> set[str]:
        """The places ``place`` lies in directly."""
        out: set[str] = set()
        for world in worlds:
            where = world.get((place, "in"))
            if isinstance(where, str) and where:
                out.add(where)
        room = self.rooms.get(place)
        if room:
            out.add(room)
        m = _POSSESSIVE.match(place)
        if m:
            out.add(m["owner"])
        out.discard(place)
        return out

    def within(self, inner: str, outer: str, t: int) -> bool:
        """Whether ``inner`` lies (at any depth) in ``outer`` around the event at ``t``."""
        worlds = self._worlds(t)
        seen = {inner}
        frontier = [inner]
        for _ in range(_DEPTH):
            nxt: list[str] = []
            for p in frontier:
                for q in self._up(p, worlds):
                    if q == outer:
                        return True
                    if q not in seen:
                        seen.add(q)
                        nxt.append(q)
            if not nxt:
                return False
            frontier = nxt
        return False

    def nested(self, a: str, b: str, t: int) -> bool:
        """Whether one of two places lies in the other around the event at ``t``."""
        return a == b or self.within(a, b, t) or self.within(b, a, t)

    def described(self, obj: str, t: int) -> set[str]:
        """The places the latest sentence that placed ``obj`` by description gave it.

        Only the sentence of the latest change of ``obj``'s place before ``t`` counts, and
        only when a describing event (narration, a look) made that change.
        """
        steps, n = self._before(obj, t)
        if not n or steps[n - 1].event.kind not in DESCRIBERS:
            return set()
        sentence = sentence_of(steps[n - 1].event)
        if sentence is None:
            return set()
        out: set[str] = set()
        for i in range(n - 1, -1, -1):  # back from the latest, without a copy
            step = steps[i]
            e = step.event
            if sentence_of(e) != sentence:
                break  # events of one sentence are consecutive
            where = step.world.get((obj, "in"))
            if e.kind in DESCRIBERS and isinstance(where, str):
                out.add(where)
        return out

    def placed_in(self, obj: str, t: int) -> int | None:
        """The sentence of the latest change of ``obj``'s place before time ``t``."""
        steps, n = self._before(obj, t)
        return sentence_of(steps[n - 1].event) if n else None

    def _before(self, obj: str, t: int) -> tuple[list[Step], int]:
        """``obj``'s placings and how many of them come before time ``t`` (no copy)."""
        steps = self._placings.get(obj, [])
        return steps, bisect.bisect_left(self._placing_ids.get(obj, []), t)

    def _worlds(self, t: int) -> list[Mapping[Variable, Value]]:
        worlds: list[Mapping[Variable, Value]] = []
        if 2 <= t <= len(self.steps) + 1:
            worlds.append(self.steps[t - 2].world)
        if 1 <= t <= len(self.steps):
            worlds.append(self.steps[t - 1].world)
        return worlds


def happenings(steps: Sequence[Step]) -> dict[int, set[str]]:
    """Per sentence index, the names a happening in it involves (lower-cased).

    A happening is a physical action (a move, opening or closing: its thing and places), a
    fact of an action ("the monkey eats the mangoes": ``Action/Event``, its subject, value
    and target), or a narrated state that replaces an earlier state of the same thing ("the
    pot is empty" ending "full": the thing). Entries and exits involve only their actors,
    whose places are the replay's business.
    """
    out: dict[int, set[str]] = {}
    before: Mapping[Variable, Value] = {}
    for step in steps:
        e = step.event
        i = sentence_of(e)
        p = e.proposition
        names: list[str | None] = []
        if i is None:
            pass
        elif e.kind in HAPPENING_KINDS:
            names += [e.obj, e.origin, e.destination]
        elif (
            e.kind in ("narrate", "observe")
            and p is not None
            and p.content_type == "Action/Event"
            and not p.negated
            and p.holder is None
        ):
            names += [p.subject, p.value, p.target]
        elif e.kind == "narrate":
            names += [
                str(var[0])
                for var in step.changed
                if len(var) >= 2
                and var[1] not in ("in", "contains")
                and before.get(var) is True
                and step.world.get(var) is False
            ]
        if i is not None:
            found = {n.lower() for n in names if isinstance(n, str) and n}
            if found:
                out.setdefault(i, set()).update(found)
        before = step.world
    return out


def involved(names: set[str], *things: object) -> bool:
    """Whether a happening's ``names`` mention any of ``things`` (whole words either way:
    "mangoes" and "ripe mangoes" are one thing)."""
    for thing in things:
        if not isinstance(thing, str) or not thing:
            continue
        t = f" {thing.lower()} "
        if any(f" {n} " in t or t in f" {n} " for n in names):
            return True
    return False
