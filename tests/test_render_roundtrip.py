"""``render`` is the inverse of the rules parser on the templated ToMi / Hi-ToM grammar."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beliefgraph.errors import ConfigurationError
from beliefgraph.models import Event, Proposition
from beliefgraph.parsers import RulesParser, render

FIELDS = (
    "kind",
    "actors",
    "obj",
    "origin",
    "destination",
    "room",
    "proposition",
    "hearers",
    "private",
)

NAMES = ["Ella", "Liam", "Avery", "Noah", "Lily", "Abigail", "Xiao Li", "Han Meimei", "May"]
ROOMS = ["garage", "living_room", "TV_room", "back_yard", "storage room", "porch"]
OBJECTS = ["spinach", "green_pepper", "lemon", "grapes", "sweet_potato", "hat", "pepper powder"]
CONTAINERS = ["green_crate", "blue_pantry", "red_envelope", "storage locker", "fruit plate", "box"]
TRAITS = ["love", "like", "hate", "dislike"]
BELONGINGS = ["watch", "phone", "gloves"]


def _loc(obj: str, place: str) -> Proposition:
    return Proposition(content_type="Location", subject=obj, relation="in", value=place)


def _fact(content_type: str, subject: str, relation: str, value: str) -> Proposition:
    return Proposition(
        content_type=content_type,
        subject=subject,
        relation=relation,  # type: ignore[arg-type]
        value=value,
    )


name = st.sampled_from(NAMES)
group = st.lists(name, min_size=1, max_size=5, unique=True).map(tuple)
room = st.sampled_from(ROOMS)
obj = st.sampled_from(OBJECTS)
container = st.sampled_from(CONTAINERS)


@st.composite
def _move(draw) -> dict:
    o, dest = draw(obj), draw(container)
    origin = draw(st.none() | container.filter(lambda c: c != dest))
    return {
        "kind": "move",
        "actors": (draw(name),),
        "obj": o,
        "origin": origin,
        "destination": dest,
        "proposition": _loc(o, dest),
    }


@st.composite
def _tell(draw) -> dict:
    speaker, o, place = draw(name), draw(obj), draw(container)
    private = draw(st.booleans())
    others = [n for n in NAMES if n != speaker]
    hearers = draw(st.lists(st.sampled_from(others), min_size=1, max_size=2, unique=True))
    return {
        "kind": "tell",
        "actors": (speaker,),
        "obj": o,
        "proposition": _loc(o, place),
        "hearers": tuple(hearers) if private else (),
        "private": private,
    }


@st.composite
def _located(draw) -> dict:
    o, place = draw(obj), draw(container)
    return {"kind": "narrate", "obj": o, "destination": place, "proposition": _loc(o, place)}


@st.composite
def _distractor(draw) -> dict:
    who = draw(name)
    prop = draw(
        st.builds(
            lambda v, x: _fact("Trait/Value", who, v, x),
            st.sampled_from(TRAITS),
            st.sampled_from(OBJECTS + CONTAINERS + ROOMS),
        )
        | st.builds(lambda x: _fact("Action/Event", who, "lose", x), st.sampled_from(BELONGINGS))
    )
    return {"kind": "narrate", "proposition": prop}


event_fields = st.one_of(
    st.builds(lambda a, r: {"kind": "enter", "actors": a, "room": r}, group, room),
    st.builds(lambda a, r: {"kind": "exit", "actors": a, "room": r}, group, room),
    st.builds(lambda a, r: {"kind": "stay", "actors": (a,), "room": r}, name, room),
    _move(),
    _located(),
    _tell(),
    _distractor(),
)


def _semantics(events) -> list[tuple]:
    return [tuple(getattr(e, f) for f in FIELDS) for e in events]


@settings(max_examples=300, deadline=None)
@given(st.lists(event_fields, min_size=1, max_size=25))
def test_parse_inverts_render(fields):
    events = [Event(id=i, **f) for i, f in enumerate(fields, 1)]
    text = render(events)
    story = RulesParser().parse(text)
    assert _semantics(story.events) == _semantics(events), text
    assert [e.id for e in story.events] == [e.id for e in events]
    assert [e.line for e in story.events] == list(range(1, len(events) + 1))


def test_render_writes_the_benchmark_wording():
    events = [
        Event(id=1, kind="stay", actors=("Liam",), room="garage"),
        Event(
            id=2,
            kind="tell",
            actors=("Avery",),
            obj="lemon",
            private=False,
            proposition=_loc("lemon", "green_drawer"),
        ),
        Event(id=3, kind="narrate", proposition=_fact("Action/Event", "Isla", "lose", "watch")),
    ]
    assert render(events).splitlines() == [
        "1 Liam made no movements and stayed in the garage for 1 minute.",
        "2 Avery publicly claimed that lemon is in the green_drawer.",
        "3 Isla lost his watch.",
    ]


def test_render_rejects_events_without_a_template():
    with pytest.raises(ConfigurationError, match="observe"):
        render([Event(id=1, kind="observe", actors=("Ella",), obj="box")])
