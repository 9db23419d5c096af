"""A proposition about a value the story never names is a question, not a crash.

A parser reads beliefs between the lines (``ImpliedBelief``); one can be about a place no
event mentions ("Bob thinks the ball is in the piano"). The consistency encoding only
registers the values the events and the *other* beliefs name, and ``truth_status`` leaves the
judged belief out, so such a value used to reach ``Encoding.holds`` unregistered and raise
``KeyError`` (the OmniToM labeller then lost the story's rows). The answer is what the world
says: False where the reference's picture is settled on a named place, Unknown where it is
open, never True.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from story_strategies import ACTORS, CONTAINERS, OBJECTS, ROOMS, event_sequences, story_of

from beliefgraph import BeliefGraph
from beliefgraph.adapters.omnitom import Labeler, solver_available
from beliefgraph.models import Belief, Event, ParsedStory, Proposition, Sentence
from beliefgraph.models.implied import ImpliedBelief
from beliefgraph.solvers import check, possible, truth_status

_SENTENCES = (
    ("Ann and Bob enter the hall.", Event(id=1, kind="enter", actors=("Ann", "Bob"), room="hall")),
    ("Bob leaves the hall.", Event(id=2, kind="exit", actors=("Bob",), room="hall")),
    (
        "Ann puts the ball in the box.",
        Event(
            id=3,
            kind="move",
            actors=("Ann",),
            obj="ball",
            destination="box",
            proposition=Proposition(
                content_type="Location", subject="ball", relation="in", value="box"
            ),
        ),
    ),
)


def _in(obj: str, place: str, *, negated: bool = False) -> Proposition:
    return Proposition(
        content_type="Location", subject=obj, relation="in", value=place, negated=negated
    )


def _graph(*implied: ImpliedBelief) -> BeliefGraph:
    """Ann and Bob in the hall; Bob leaves; Ann puts the ball in the box. Nothing names a piano."""
    sentences = tuple(
        Sentence(index=i, text=text, events=(e.id,)) for i, (text, e) in enumerate(_SENTENCES)
    )
    events = tuple(
        e.model_copy(update={"sentence_index": i}) for i, (_, e) in enumerate(_SENTENCES)
    )
    story = ParsedStory(
        text=" ".join(text for text, _ in _SENTENCES),
        sentences=sentences,
        events=events,
        actors=("Ann", "Bob"),
        implied=implied,
    )
    return BeliefGraph(story)


def _belief(holders: tuple[str, ...], p: Proposition, start: int = 0, end: int | None = None):
    """A hand-made belief; its own labels do not matter (``truth_status`` leaves it out)."""
    return Belief(
        holders=holders,
        proposition=p,
        start=start,
        end=end,
        truth_status="Unknown",
        knowledge_access="Private",
        representation="Implicit",
        mental_source="Inference",
    )


def _implied_belief(graph: BeliefGraph, wording: str) -> Belief:
    (found,) = [b for b in graph.beliefs() if b.wording == wording]
    return found


def _bob_thinks(obj: str, place: str, holders: tuple[str, ...] = ("Bob",)) -> ImpliedBelief:
    return ImpliedBelief(
        holders=holders,
        proposition=_in(obj, place),
        wording=f"the {obj} is in the {place}",
        evidence=(0,),
        how="inferred",
    )


def test_the_smallest_reproduction_passes_the_check_and_gets_a_verdict() -> None:
    # Bob, who left before the move, infers the ball is in the piano: consistent (he never saw
    # where it went), so a labeller asks the solver, which used to raise KeyError('piano').
    graph = _graph(_bob_thinks("ball", "piano"))
    assert check(graph).consistent
    belief = _implied_belief(graph, "the ball is in the piano")
    # The reference is reality, where the ball is in the box: the belief is false.
    assert truth_status(graph, belief) == "False"


def test_a_thing_the_events_never_place_is_unknown() -> None:
    # Nothing says where the key is: the world does not say, so neither can the solver.
    graph = _graph(_bob_thinks("key", "piano"))
    assert check(graph).consistent
    belief = _implied_belief(graph, "the key is in the piano")
    assert truth_status(graph, belief) == "Unknown"


def test_a_nested_belief_reads_the_inner_holders_open_picture() -> None:
    # "Ann thinks Bob thinks the ball is in the piano": Bob's own picture is the reference,
    # and he left before the move, so it could be anywhere.
    implied = ImpliedBelief(
        holders=("Ann", "Bob"),
        proposition=_in("ball", "piano"),
        wording="Bob thinks the ball is in the piano",
        evidence=(2,),
        how="inferred",
    )
    graph = _graph(implied)
    assert check(graph).consistent
    belief = _implied_belief(graph, "Bob thinks the ball is in the piano")
    assert truth_status(graph, belief) == "Unknown"


def test_a_negated_belief_about_an_unnamed_place_is_judged_too() -> None:
    graph = _graph()
    no_piano = _belief(("Bob",), _in("ball", "piano", negated=True))
    assert truth_status(graph, no_piano) == "True"  # the ball is in the box, not the piano
    no_piano_key = _belief(("Bob",), _in("key", "piano", negated=True))
    assert truth_status(graph, no_piano_key) == "Unknown"


def test_contents_of_an_unnamed_container_are_judged() -> None:
    graph = _graph()
    holds_ball = Proposition(
        content_type="Location", subject="piano", relation="contains", value="ball"
    )
    assert truth_status(graph, _belief(("Ann",), holds_ball)) == "False"
    assert possible(graph, ("Bob",), ("piano", "contains")) == ("ball", None)
    assert possible(graph, ("Ann",), ("piano", "contains")) == (None,)


def test_possible_answers_a_yes_no_question_about_an_unnamed_place() -> None:
    # The (obj, "in", place) form of ``possible`` reached ``holds`` the same way.
    graph = _graph()
    assert possible(graph, (), ("ball", "in", "piano")) == (False,)
    assert possible(graph, ("Bob",), ("ball", "in", "piano")) == (False, True)
    assert possible(graph, (), ("key", "in", "piano")) == (False, True)
    assert graph.possible(("Ann",), ("ball", "in", "piano")) == (False,)


def test_the_verdicts_on_named_places_are_unchanged() -> None:
    graph = _graph()
    assert possible(graph, (), "ball") == ("box",)
    assert possible(graph, ("Bob",), "ball") == ("box", None)
    in_box = _belief(("Bob",), _in("ball", "box"))
    assert truth_status(graph, in_box) == "True"


@pytest.mark.skipif(not solver_available(), reason="the z3 consistency solver does not import")
def test_the_omnitom_labeller_asks_the_solver_and_keeps_the_row() -> None:
    graph = _graph(_bob_thinks("ball", "piano"))
    labeler = Labeler(graph, truth="solver")
    belief = _implied_belief(graph, "the ball is in the piano")
    assert labeler.labels(belief).truth_status == "False"
    assert labeler.solver_calls == 1
    assert labeler.solver_fallbacks == 0


_NAMED = {*ACTORS, *ROOMS, *OBJECTS, *CONTAINERS}
_places = st.text(alphabet="abcdefghijklmnopqrstuvwxyz {}'\"./", min_size=1, max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(event_sequences(tells=False, max_events=8), st.data())
def test_an_unnamed_place_is_false_where_settled_and_unknown_where_open(
    events: list[Event], data: st.DataObject
) -> None:
    # The invariant ``truth_status`` and ``possible`` share: a place no one names can only be
    # one of the places "none the story names" stands for.
    graph = BeliefGraph(story_of(events))
    place = data.draw(_places.filter(lambda s: s.strip() and s not in _NAMED))
    obj = data.draw(st.sampled_from(OBJECTS))
    holder = data.draw(st.sampled_from(graph.actors))
    t = data.draw(st.integers(0, graph.end))
    assume(check(graph).consistent)
    belief = _belief((holder,), _in(obj, place), t, t + 1)
    status = truth_status(graph, belief)
    open_ = None in possible(graph, (), obj, at=t)
    assert status == ("Unknown" if open_ else "False")
    assert possible(graph, (), (obj, "in", place), at=t) == ((False, True) if open_ else (False,))
