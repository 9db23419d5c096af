"""OpenToM text mode read from the narrative's graph: what one character knows of another's
perception (``reasoning.awareness.perception_slips``), the mover's aim (``reasoning.intent``),
and the answers the adapter builds on them (second order, accessibility, attitude), on
hand-built parses; the recorded frontier-model figures are in ``test_textmode_recorded.py``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from story_strategies import event_sequences, story_of

from beliefgraph.adapters.item import Item
from beliefgraph.adapters.opentom import _text_answer
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Entity, Event, ParsedStory, Proposition
from beliefgraph.reasoning.attitude import attitude_words
from beliefgraph.reasoning.awareness import as_modelled_by, perception_slips
from beliefgraph.reasoning.intent import aim_of, aim_words


def _loc(obj: str, where: str, *, negated: bool = False) -> Proposition:
    return Proposition(
        content_type="Location", subject=obj, relation="in", value=where, negated=negated
    )


def _said(
    i: int,
    subject: str,
    relation: str,
    value: str,
    n: int,
    *,
    negated: bool = False,
    kind: str = "Epistemic",
    sentence: str = "",
) -> Event:
    p = Proposition(
        content_type=kind, subject=subject, relation=relation, value=value, negated=negated
    )  # type: ignore[arg-type]
    return Event(id=i, kind="narrate", proposition=p, sentence_index=n, sentence=sentence)


_ENTITIES = (
    Entity(name="hat", kind="object"),
    *(Entity(name=c, kind="container") for c in ("box", "bag", "bin", "shelf")),
)


def _story(events: list[Event], actors: tuple[str, ...] = ("Ann", "Bo")) -> BeliefGraph:
    return BeliefGraph(
        ParsedStory(text="", sentences=(), actors=actors, events=tuple(events), entities=_ENTITIES)
    )


def _witnessed() -> list[Event]:
    """Ann moves the hat while Bo watches, and Ann does not know he watched."""
    return [
        Event(id=1, kind="enter", actors=("Ann", "Bo"), room="hall", sentence_index=0),
        Event(
            id=2,
            kind="observe",
            actors=("Ann", "Bo"),
            proposition=_loc("hat", "box"),
            sentence_index=1,
        ),
        Event(
            id=3,
            kind="move",
            actors=("Ann",),
            obj="hat",
            origin="box",
            destination="bag",
            proposition=_loc("hat", "bag"),
            sentence_index=2,
        ),
        _said(
            4,
            "Ann",
            "know",
            "Bo witnessed the move",
            3,
            negated=True,
            sentence="Unbeknownst to Ann, Bo had witnessed this.",
        ),
    ]


def _left() -> list[Event]:
    """Bo leaves, then Ann moves the hat, and Ann does not know Bo had left."""
    return [
        Event(id=1, kind="enter", actors=("Ann", "Bo"), room="hall", sentence_index=0),
        Event(
            id=2,
            kind="observe",
            actors=("Ann", "Bo"),
            proposition=_loc("hat", "box"),
            sentence_index=1,
        ),
        Event(id=3, kind="exit", actors=("Bo",), room="hall", sentence_index=2),
        Event(
            id=4,
            kind="move",
            actors=("Ann",),
            obj="hat",
            origin="box",
            destination="bag",
            proposition=_loc("hat", "bag"),
            sentence_index=3,
        ),
        _said(
            5,
            "Ann",
            "know",
            "hall",
            4,
            negated=True,
            sentence="Little did Ann know, Bo had already left the hall.",
        ),
    ]


def _place(graph: BeliefGraph, chain: tuple[str, ...]) -> Any:
    b = graph.belief(chain, obj="hat")
    return None if b is None else b.proposition.value


def test_an_unnoticed_witness_is_modelled_as_not_having_seen_the_move() -> None:
    g = _story(_witnessed())
    assert _place(g, ("Bo",)) == "bag"  # he saw it
    assert _place(g, ("Ann", "Bo")) == "bag"  # co-presence alone: she thinks he saw it
    (slip,) = perception_slips(g, "Ann", "Bo")
    assert (slip.kind, slip.fact, slip.events) == ("witnessed", 4, (3,))
    seen = as_modelled_by(g, "Ann", "Bo")
    assert _place(seen, ("Ann", "Bo")) == "box"
    assert _place(seen, ("Ann",)) == "bag"  # her own belief is untouched
    assert perception_slips(g, "Bo", "Ann") == []  # he knows what she saw


def test_an_unnoticed_departure_is_modelled_as_still_there() -> None:
    g = _story(_left())
    assert _place(g, ("Ann", "Bo")) == "box"  # he left before the move
    (slip,) = perception_slips(g, "Ann", "Bo")
    assert slip.kind == "left" and 4 in slip.events
    assert _place(as_modelled_by(g, "Ann", "Bo"), ("Ann", "Bo")) == "bag"


def _denial(value: str, sentence: str) -> Event:
    return _said(4, "Ann", "know", value, 3, negated=True, sentence=sentence)


def test_a_negated_witnessing_is_no_slip() -> None:
    # Invented wordings: a negation governing the perception verb means Bo did not see it,
    # so Ann (who does not know of any watching) is right about him.
    for value, sentence in [
        ("Bo had not seen the move", "Ann had no idea that Bo had not seen the swap."),
        ("Bo never once watched her", "Ann did not realise Bo never once watched her."),
        ("Bo didn't notice the hat", "Ann did not know Bo didn't notice the hat go."),
        ("the hat", "Ann did not know that Bo left without observing anything."),
    ]:
        g = _story([*_witnessed()[:3], _denial(value, sentence)])
        assert perception_slips(g, "Ann", "Bo") == [], sentence
        assert as_modelled_by(g, "Ann", "Bo") is g
    # a negation in an earlier clause does not govern the verb
    g = _story([*_witnessed()[:3], _denial("the hat", "Ann did not know Bo, never idle, saw it.")])
    assert [s.kind for s in perception_slips(g, "Ann", "Bo")] == ["witnessed"]


def test_a_parse_that_negates_the_others_perception_is_no_slip() -> None:
    # the words are loose ("Bo and the window: seen ...") but the parse says Bo did not see
    denied = _said(5, "Bo", "see", "the move", 3, negated=True)
    sentence = "Ann did not know about Bo and the window, where the swap was seen or not."
    assert perception_slips(
        _story([*_witnessed()[:3], _denial("the window", sentence)]), "Ann", "Bo"
    )
    g = _story([*_witnessed()[:3], _denial("the window", sentence), denied])
    assert perception_slips(g, "Ann", "Bo") == []


def test_a_negated_departure_is_no_slip() -> None:
    never = "Ann did not know that Bo had never left the hall."
    events = [*_left()[:4], _said(5, "Ann", "know", "hall", 4, negated=True, sentence=never)]
    assert perception_slips(_story(events), "Ann", "Bo") == []


def test_a_denial_that_names_no_perception_of_the_other_changes_nothing() -> None:
    price = _said(
        4,
        "Ann",
        "know",
        "the price of the hat",
        3,
        negated=True,
        sentence="Ann did not know its price.",
    )
    events = [*_witnessed()[:3], price]
    g = _story(events)
    assert perception_slips(g, "Ann", "Bo") == []
    assert as_modelled_by(g, "Ann", "Bo") is g


@settings(max_examples=40, deadline=None)
@given(event_sequences(tells=True))
def test_a_story_without_unawareness_facts_is_read_unchanged(events: list[Event]) -> None:
    """No narrated "does not know" fact: every chain's model of another is the graph's own."""
    g = BeliefGraph(story_of(events))
    for a in g.actors:
        for b in g.actors:
            if a != b:
                assert as_modelled_by(g, a, b) is g


def test_aims_in_plain_words() -> None:
    assert aim_words("to dispose of the persimmon discreetly") == "less"
    assert aim_words("to make the shoes harder to access") == "less"
    assert aim_words("to showcase the orange on the dining table") == "more"
    assert aim_words("for Dakota to grab the belt on the way out", ["Dakota"]) == "more"
    assert aim_words("to keep the hat in his own room") == "keep"
    assert aim_words("to keep the peace") is None


def _aim_story(plan: str, n: int) -> BeliefGraph:
    return _story(
        [
            Event(id=1, kind="enter", actors=("Ann", "Bo"), room="hall", sentence_index=0),
            Event(
                id=2,
                kind="observe",
                actors=("Ann", "Bo"),
                proposition=_loc("hat", "box"),
                sentence_index=1,
            ),
            _said(3, "Ann", "plan", plan, n, kind="Desire/Intention"),
            Event(
                id=4,
                kind="move",
                actors=("Ann",),
                obj="hat",
                origin="box",
                destination="shelf",
                proposition=_loc("hat", "shelf"),
                sentence_index=5,
            ),
        ]
    )


def test_the_aim_is_the_movers_stated_intention_about_the_thing() -> None:
    read = aim_of(_aim_story("to get rid of the hat", 0), "Ann", "hat")
    assert read.value == "less" and read.cites[0].events == (3,)
    assert aim_of(_aim_story("to get rid of the hat", 0), "Bo", "hat").value is None
    # not naming the thing, it counts only next to the move
    assert aim_of(_aim_story("to make it easy to reach", 0), "Ann", "hat").value is None
    assert aim_of(_aim_story("to make it easy to reach", 4), "Ann", "hat").value == "more"


def test_attitude_wordings() -> None:
    assert attitude_words("feel", "fascinated by shoes") == ("like", "shoes")
    assert attitude_words("feel", "a strong aversion to cabbage") == ("hate", "cabbage")
    bear = attitude_words("feel", "cannot bear the lemon close to him")
    assert bear == ("hate", "the lemon close to him")


def _item(question: str, answer: str, qtype: str) -> Item:
    meta = {
        "question_type": qtype,
        "observed": True,
        "narrative": "x",
        "plot_info": {
            "mover": "Ann",
            "observer": "Bo",
            "original_place": "box",
            "move_to_place": "bag",
        },
        # What the text mode must not read: an aim that contradicts the story's.
        "sentiment_statement": "Ann wants to show-off the hat.",
        "personality": "",
    }
    return Item(id=f"{qtype}:s:0", story="x", question=question, answer=answer, meta=meta)


def test_text_mode_reads_second_order_through_the_unawareness_fact() -> None:
    g = _story(_witnessed())
    q = (
        "From Ann's perspective, does Bo think that the hat is in its initial location by the "
        "end of the story?"
    )
    r = _text_answer(_item(q, "Yes", "location_coarse_so"), g)
    assert r.prediction == "Yes"
    assert any("does not know what Bo perceived" in line for line in r.explanation)


def test_text_mode_reads_the_aim_from_the_graph_not_meta_data() -> None:
    events = [
        *_witnessed()[:2],
        _said(3, "Ann", "plan", "to get rid of the hat", 2, kind="Desire/Intention"),
        Event(
            id=4,
            kind="move",
            actors=("Ann",),
            obj="hat",
            origin="box",
            destination="bin",
            proposition=_loc("hat", "bin"),
            sentence_index=2,
        ),
        _said(5, "Bo", "feel", "loves the hat", 3, kind="Emotion"),
    ]
    g = _story(events)
    acc = "From Bo's perspective, how would hat's accessibility change by the end of the story?"
    r = _text_answer(_item(acc, "less accessible", "multihop_fo"), g)
    assert r.prediction == "less accessible", r.explanation
    att = "As Bo, what is your attitude towards Ann's action of moving hat from box to bin?"
    r = _text_answer(_item(att, "negative", "attitude"), g)
    assert r.prediction == "negative", r.explanation
    assert "get rid of the hat" in r.explanation[-1]


def test_text_mode_without_a_stated_aim_leaves_accessibility_unanswered() -> None:
    g = _story(_witnessed())
    acc = "From Bo's perspective, how would hat's accessibility change by the end of the story?"
    r = _text_answer(_item(acc, "less accessible", "multihop_fo"), g)
    assert r.prediction is None
    assert "no stated intention" in r.explanation[-1]


def test_a_thing_seen_gone_is_believed_elsewhere() -> None:
    events = [
        *_witnessed()[:2],
        Event(
            id=3,
            kind="observe",
            actors=("Ann", "Bo"),
            proposition=_loc("hat", "box", negated=True),
            sentence_index=2,
        ),
    ]
    g = _story(events)
    q = "From Bo's perspective, is the hat in its initial location by the end of the story?"
    r = _text_answer(_item(q, "No", "location_coarse_fo"), g)
    assert r.prediction == "No", r.explanation


def test_a_container_seen_where_it_stands_is_not_carried() -> None:
    """ "The belt is in the basket", then "the basket is on the counter": the belt is still in
    the basket (only a move of the basket takes the belt along)."""
    events = [
        *_witnessed()[:2],
        Event(
            id=3,
            kind="observe",
            actors=("Ann", "Bo"),
            proposition=_loc("box", "shelf"),
            sentence_index=2,
        ),
    ]
    q = "From Bo's perspective, where is the hat located precisely by the end of the story?"
    r = _text_answer(_item(q, "box", "location_fine_fo"), _story(events))
    assert r.prediction == "box", r.explanation


def test_without_a_stated_intention_the_movers_own_attitude_is_the_motive() -> None:
    """No "to get rid of it" in the story, but the mover despises the hat: moved away."""
    events = [
        *_witnessed()[:2],
        _said(3, "Ann", "feel", "despises the hat", 2, kind="Emotion"),
        Event(
            id=4,
            kind="move",
            actors=("Ann",),
            obj="hat",
            origin="box",
            destination="bin",
            proposition=_loc("hat", "bin"),
            sentence_index=3,
        ),
    ]
    acc = "From Bo's perspective, how would hat's accessibility change by the end of the story?"
    r = _text_answer(_item(acc, "less accessible", "multihop_fo"), _story(events))
    assert r.prediction == "less accessible", r.explanation
    assert "no stated intention, but" in r.explanation[-1]


def test_exclusive_access_is_keeping_it() -> None:
    # An invented wording, not a benchmark story's.
    assert aim_words("so the violin stays his exclusively to practise on") == "keep"


def test_claiming_something_happened_is_no_keeping() -> None:
    # Invented wordings: "claim" says what one will assert, not that one keeps the thing;
    # keeping is still read from its own words.
    assert aim_words("to claim it was lost") != "keep"
    assert aim_words("so she could claim the kettle had been stolen") != "keep"
    assert aim_words("to claim the lamp as her own") == "keep"  # "her own", not "claim"
    assert aim_words("to hoard the buttons") == "keep"
