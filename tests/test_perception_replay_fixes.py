"""Two replay bugs of ``solvers.perception``: a container's place, and the contents it loses.

Both were noticed by the checker's engineer: narrating what a container holds moved the
container to its default room although the story had placed it ("the package on the doorstep"
became "the package in the room"), and seeing a thing taken out revealed the first contents
the story ever gave the container instead of the thing taken out.
"""

from __future__ import annotations

from beliefgraph.models import Event, ParsedStory, Proposition, Sentence
from beliefgraph.solvers import PerceptionModel, simulate


def _loc(thing: str, place: str) -> Proposition:
    return Proposition(content_type="Location", subject=thing, relation="in", value=place)


def _holds(container: str, thing: str) -> Proposition:
    return Proposition(
        content_type="Contents/Physical State", subject=container, relation="contains", value=thing
    )


def _story(*events: Event, actors: tuple[str, ...] = ("Ann",)) -> ParsedStory:
    sentences = tuple(
        Sentence(index=i, text=f"sentence {i}", events=(e.id,)) for i, e in enumerate(events)
    )
    events = tuple(e.replaced(sentence_index=i) for i, e in enumerate(events))
    return ParsedStory(text="", sentences=sentences, events=events, actors=actors)


def test_narrating_a_placed_containers_contents_keeps_it_where_it_is() -> None:
    story = _story(
        Event(id=1, kind="enter", actors=("Ann",), room="hall"),
        Event(id=2, kind="narrate", proposition=_loc("package", "doorstep")),
        Event(id=3, kind="narrate", proposition=_holds("package", "book")),
    )
    tl = simulate(story, PerceptionModel())
    assert tl.world_at(3)[("package", "in")] == "doorstep"
    assert tl.world_at(3)[("book", "in")] == "package"
    # nothing the third event shows puts the package anywhere else
    assert all(r.variable != ("package", "in") for r in tl.steps[2].reveals)


def test_a_container_inside_a_placed_container_is_in_that_containers_room() -> None:
    story = _story(
        Event(id=1, kind="enter", actors=("Ann",), room="study"),
        Event(
            id=2,
            kind="move",
            actors=("Ann",),
            obj="box",
            destination="cupboard",
            proposition=_loc("box", "cupboard"),
        ),
        Event(id=3, kind="narrate", proposition=_holds("box", "ring")),
    )
    tl = simulate(story, PerceptionModel())
    assert tl.world_at(3)[("box", "in")] == "cupboard"
    assert tl.container_rooms["box"] == "study"


def test_an_unplaced_container_still_gets_its_default_room() -> None:
    story = _story(
        Event(id=1, kind="enter", actors=("Ann",), room="hall"),
        Event(id=2, kind="narrate", proposition=_holds("box", "ring")),
    )
    tl = simulate(story, PerceptionModel())
    assert tl.world_at(2)[("box", "in")] == "hall"  # the scene the story last entered


def test_seeing_a_thing_taken_out_reveals_the_current_contents_ending() -> None:
    story = _story(
        Event(id=1, kind="enter", actors=("Ann",), room="kitchen"),
        Event(id=2, kind="narrate", proposition=_holds("box", "pencil")),
        Event(
            id=3,
            kind="move",
            actors=("Ann",),
            obj="pencil",
            destination="drawer",
            proposition=_loc("pencil", "drawer"),
        ),
        Event(id=4, kind="narrate", proposition=_holds("box", "pen")),
        Event(
            id=5,
            kind="move",
            actors=("Ann",),
            obj="pen",
            destination="table",
            proposition=_loc("pen", "table"),
        ),
    )
    tl = simulate(story, PerceptionModel())
    ended = [r for r in tl.steps[4].reveals if r.variable == ("box", "contains")]
    assert len(ended) == 1 and ended[0].value is None
    # the contents that end are the pen taken out, not the pencil the box first held
    assert ended[0].proposition.value == "pen"
    assert ("box", "contains") not in tl.world_at(5)
