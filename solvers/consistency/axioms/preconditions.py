"""Preconditions of events: what must hold for an event to be possible when it happens.

Each is read off the replayed story (who is where, what is where just before the event),
so a breach is a ``false`` constraint under the events involved, and the conflict names
their lines:

================ =======================================================================
mover_present    whoever moves a thing is on stage and in the room of the container it
                 is in ("Sally goes out. Sally moves the ball." names both lines)
taken_from       a thing taken out of a container was in it ("The key is in the drawer.
                 Ann takes the key out of the box.")
hearer_present   a named hearer of a telling that is not private (a call, a message) is
                 in the speaker's room
================ =======================================================================

What a faithful reading of prose does is not a breach: a mover who goes out and puts the
thing somewhere in one sentence acts where they went; a thing taken from a place nested with
the one it is in (shelves of a cupboard), or from a place the sentence that placed it named,
is taken from where it is; a speaker or hearer the story never placed is not elsewhere.

Limits: an actor with no entry is on stage from the start (the replay's rule), and a
container stays in the room where it is first mentioned.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from beliefgraph.models import Event

from ...perception import Value, Variable
from ..axiom import HEARER_PRESENT, MOVER_PRESENT, TAKEN_FROM, Constraint, register
from ..encoding import Encoding
from ..narration import sentence_of

__all__: list[str] = []


def _before(enc: Encoding, t: int) -> tuple[Mapping[str, str | None], Mapping[Variable, Value]]:
    """Where actors are and what the world is just before the event at ``t``."""
    if t >= 2:
        step = enc.steps[t - 2]
        return step.rooms, step.world
    return enc.graph.timeline.initial_rooms, {}


def _set_by(enc: Encoding, var: Variable, value: Value, before: int) -> int | None:
    """The latest event before ``before`` that set ``var`` to ``value``."""
    for step in reversed(enc.steps[: max(before - 1, 0)]):
        if var in step.changed and step.world.get(var) == value:
            return step.event.id
    return None


def _entered(enc: Encoding, actor: str, before: int) -> int | None:
    """The time of ``actor``'s latest entry before ``before``."""
    for step in reversed(enc.steps[: max(before - 1, 0)]):
        if step.event.kind == "enter" and actor in step.event.actors:
            return step.event.id
    return None


def _same_sentence(enc: Encoding, a: int, b: int) -> bool:
    """Whether the events at times ``a`` and ``b`` were read from one sentence."""
    first, second = enc.steps[a - 1].event, enc.steps[b - 1].event
    return sentence_of(first) is not None and sentence_of(first) == sentence_of(second)


def _unplaced(enc: Encoding, actor: str, before: int) -> bool:
    """Whether the story put ``actor`` nowhere before time ``before``: the room the replay
    gives them (on stage from the start) is a default, not a story fact."""
    for step in enc.steps[: max(before - 1, 0)]:
        e = step.event
        if actor in e.actors and (e.kind in ("enter", "exit", "stay") or e.room):
            return False
    return True


def _breach(enc: Encoding, *times: int | None) -> Constraint:
    facts = tuple(("event", t) for t in sorted({t for t in times if t is not None}))
    return Constraint(enc.terms.false, facts)


def _moves(enc: Encoding) -> Iterator[Event]:
    for step in enc.steps:
        e = step.event
        if e.kind == "move" and e.agent is not None and e.obj is not None:
            yield e


def _mover_present(enc: Encoding) -> Iterator[Constraint]:
    rooms_of_containers = enc.graph.timeline.container_rooms
    for e in _moves(enc):
        rooms, world = _before(enc, e.id)
        where = rooms.get(e.agent or "")
        if where is None:
            gone = enc.graph.timeline.last_exit(e.agent or "", None, e.id)
            if gone is not None and not _same_sentence(enc, gone, e.id):
                yield _breach(enc, gone, e.id)  # left and never came back
            # (going out and putting the thing somewhere in one sentence is acting where
            # the mover went: "he carried it outside, placing it in the shed")
            continue
        place = world.get((e.obj or "", "in"))
        if not isinstance(place, str) or place not in rooms_of_containers:
            continue
        if rooms_of_containers[place] != where:
            put = _set_by(enc, (e.obj or "", "in"), place, e.id)
            yield _breach(enc, put, _entered(enc, e.agent or "", e.id), e.id)


def _taken_from(enc: Encoding) -> Iterator[Constraint]:
    for e in _moves(enc):
        if not e.origin:
            continue
        _, world = _before(enc, e.id)
        place = world.get((e.obj or "", "in"))
        if not isinstance(place, str) or place == e.origin:
            continue
        if enc.nesting.nested(place, e.origin, e.id):
            continue  # "shoes on the shelves" of a cupboard are taken from the shelves
        if e.origin in enc.nesting.described(e.obj or "", e.id):
            continue  # one sentence placed the thing in both (nested places)
        yield _breach(enc, _set_by(enc, (e.obj or "", "in"), place, e.id), e.id)


def _hearer_present(enc: Encoding) -> Iterator[Constraint]:
    timeline = enc.graph.timeline
    for step in enc.steps:
        e = step.event
        if e.kind != "tell" or e.private or e.agent is None or not e.hearers:
            continue
        rooms, _ = _before(enc, e.id)
        where = rooms.get(e.agent)
        if where is None:
            continue  # an absent speaker is a matter for the replay, not for hearers
        if _unplaced(enc, e.agent, e.id):
            continue  # the replay's default room for the speaker is not a story fact
        for hearer in e.hearers:
            there = rooms.get(hearer, where)
            if hearer == e.agent or there == where:
                continue
            if there is not None and _unplaced(enc, hearer, e.id):
                continue  # nor is it for a hearer the story never placed
            yield _breach(enc, timeline.last_exit(hearer, None, e.id), e.id)


register(
    MOVER_PRESENT,
    "Whoever moves a thing is on stage and in the room of the container the thing is in.",
    "a mover must be where the thing is",
    _mover_present,
    static=True,
)
register(
    TAKEN_FROM,
    "A thing taken out of a container was in that container just before.",
    "a thing is taken out only of the container it is in",
    _taken_from,
    static=True,
)
register(
    HEARER_PRESENT,
    "A named hearer of a telling that is not private (a call, a message) is in the "
    "speaker's room when it is said.",
    "a hearer must be present or addressed privately",
    _hearer_present,
    static=True,
)
