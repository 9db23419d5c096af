"""A later state of a thing replaces the earlier one (``Proposition.key``), for whoever
perceives it: in the world, in beliefs, for the rules parser's facts and for an LLM parse's
(the parse schema is unchanged; the key is read off the proposition)."""

from __future__ import annotations

import warnings

from hypothesis import given, settings
from hypothesis import strategies as st

from beliefgraph import track
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Event, ParsedStory, Proposition, Sentence
from beliefgraph.solvers import check


def _beliefs(graph: BeliefGraph, who: str) -> set[str]:
    return {
        b.proposition.render()
        for b in graph.beliefs(max_order=1, at=graph.end)
        if b.holders == (who,)
    }


def _track(text: str) -> BeliefGraph:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every sentence must be read
        return track(text)


def test_a_state_seen_replaces_the_earlier_state_of_that_key() -> None:
    g = _track(
        "Anne and Tom are in the kitchen. The kettle is cold. Tom leaves the kitchen. "
        "The kettle becomes hot. Anne sees the kettle."
    )
    world = g.timeline.world_at(g.end)
    assert world[("kettle", "be", "cold")] is False
    assert world[("kettle", "become", "hot")] is True
    assert {"the kettle becomes hot", "the kettle is not cold"} <= _beliefs(g, "Anne")
    assert not any("kettle" in b and "in the" not in b for b in _beliefs(g, "Tom"))


def test_a_state_on_another_scale_does_not_replace() -> None:
    g = _track("Anne is in the kitchen. The tea is hot. The tea is sweet. Anne sees the tea.")
    world = g.timeline.world_at(g.end)
    assert world[("tea", "be", "hot")] is True and world[("tea", "be", "sweet")] is True


def test_states_on_no_known_scale_do_not_replace_each_other() -> None:
    # "heavy" says nothing about "big"; only a label's text replaces another text.
    g = _track("Ann is in the kitchen. The box is big. The box is heavy. Ann sees the box.")
    world = g.timeline.world_at(g.end)
    assert world[("box", "be", "big")] is True
    assert world[("box", "be", "heavy")] is True
    assert {"the box is big", "the box is heavy"} <= _beliefs(g, "Ann")


def test_an_actors_facts_are_not_keyed() -> None:
    g = _track("Kofi is a fisherman. Kofi is tired.")
    world = g.timeline.world_at(g.end)
    assert world[("Kofi", "be", "a fisherman")] is True and world[("Kofi", "be", "tired")] is True


def _label(text: str) -> Proposition:
    # As the LLM parser's recorded BigToM answers spell it: an inflected relation.
    return Proposition(
        content_type="Contents/Physical State", subject="label", relation="states", value=text
    )


def _llm_story(zara_looks_again: bool) -> ParsedStory:
    first, second = _label("the painting is by a famous artist"), _label("it is by a new artist")
    events = [
        Event(id=1, kind="enter", actors=("Zara", "Sam"), room="gallery", sentence_index=0),
        Event(id=2, kind="narrate", proposition=first, sentence_index=1),
        Event(id=3, kind="observe", actors=("Zara", "Sam"), proposition=first, sentence_index=1),
        Event(id=4, kind="exit", actors=("Zara",), room="gallery", sentence_index=2),
        Event(id=5, kind="narrate", proposition=second, sentence_index=3),
        Event(id=6, kind="observe", actors=("Sam",), proposition=second, sentence_index=4),
    ]
    if zara_looks_again:
        events += [
            Event(id=7, kind="enter", actors=("Zara",), room="gallery", sentence_index=5),
            Event(id=8, kind="observe", actors=("Zara",), proposition=second, sentence_index=6),
        ]
    sentences = tuple(
        Sentence(index=i, text=f"Sentence {i + 1}.", events=tuple(e.id for e in events
                                                                  if e.sentence_index == i))
        for i in range(max(e.sentence_index for e in events) + 1)
    )  # fmt: skip
    return ParsedStory(
        text=" ".join(s.text for s in sentences),
        sentences=sentences,
        events=tuple(events),
        actors=("Zara", "Sam"),
    )


def test_an_llm_parse_label_states_x_then_y_is_one_key() -> None:
    g = BeliefGraph(_llm_story(zara_looks_again=False))
    sam, zara = _beliefs(g, "Sam"), _beliefs(g, "Zara")
    assert "the label states it is by a new artist" in sam
    assert "the label does not state the painting is by a famous artist" in sam
    # Zara left before the label changed: she still holds the first text, and only it.
    assert "the label states the painting is by a famous artist" in zara
    assert not any("new artist" in b for b in zara)
    assert check(g).consistent


def test_a_second_look_replaces_the_first_text() -> None:
    g = BeliefGraph(_llm_story(zara_looks_again=True))
    zara = _beliefs(g, "Zara")
    assert "the label states it is by a new artist" in zara
    assert "the label does not state the painting is by a famous artist" in zara
    assert check(g).consistent


def test_a_look_at_a_different_description_changes_nothing_in_the_world() -> None:
    # Seeing the dog "huge" after the narrator said "very big" is another description, not a
    # change: an observation changes no state (the consistency check's frame axiom).
    big = Proposition(
        content_type="Contents/Physical State", subject="dog", relation="be", value="very big"
    )
    huge = big.model_copy(update={"value": "huge"})
    events = (
        Event(id=1, kind="narrate", proposition=big, sentence_index=0),
        Event(id=2, kind="observe", actors=("Bo",), proposition=huge, sentence_index=1),
    )
    sentences = (
        Sentence(index=0, text="The dog is very big.", events=(1,)),
        Sentence(index=1, text="Bo sees the dog is huge.", events=(2,)),
    )
    story = ParsedStory(text="", sentences=sentences, events=events, actors=("Bo",))
    g = BeliefGraph(story)
    assert g.timeline.world_at(2)[("dog", "be", "very big")] is True
    assert check(g).consistent


_VALUES = ("red", "green", "yellow")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(_VALUES), st.sets(st.sampled_from(("Ann", "Ben")))),
        min_size=1,
        max_size=6,
    )
)
def test_each_holder_believes_at_most_one_state_of_a_key(
    changes: list[tuple[str, set[str]]],
) -> None:
    """However the light changes and whoever sees which change, each actor's beliefs hold
    at most one colour of the light, and it is the last colour that actor saw; the world
    holds exactly the last colour."""
    events: list[Event] = [Event(id=1, kind="enter", actors=("Ann", "Ben"), room="street")]
    last_seen: dict[str, str] = {}
    for colour, seers in changes:
        p = Proposition(
            content_type="Contents/Physical State", subject="light", relation="be", value=colour
        )
        events.append(Event(id=len(events) + 1, kind="narrate", proposition=p, perceivers=()))
        if seers:
            events.append(Event(id=len(events) + 1, kind="observe", actors=tuple(sorted(seers)),
                                proposition=p, perceivers=tuple(sorted(seers))))  # fmt: skip
            last_seen.update(dict.fromkeys(seers, colour))
    story = ParsedStory(text="", sentences=(), events=tuple(events), actors=("Ann", "Ben"))
    g = BeliefGraph(story)
    world = g.timeline.world_at(g.end)
    lit = [var[2] for var, held in world.items() if var[0] == "light" and held is True]
    assert lit == [changes[-1][0]]
    for who in ("Ann", "Ben"):
        held = [
            b.proposition.value
            for b in g.beliefs(max_order=1, at=g.end)
            if b.holders == (who,) and b.proposition.subject == "light"
            and not b.proposition.negated
        ]  # fmt: skip
        assert held == ([last_seen[who]] if who in last_seen else [])


def _closed_box_story(relation: str, value: str | None) -> ParsedStory:
    shut = Proposition(
        content_type="Contents/Physical State", subject="box", relation=relation, value=value
    )
    cup = Proposition(content_type="Location", subject="cup", relation="in", value="box")
    events = (
        Event(id=1, kind="enter", actors=("Ann",), room="kitchen", sentence_index=0),
        Event(id=2, kind="narrate", proposition=shut, sentence_index=1),
        Event(id=3, kind="narrate", proposition=cup, sentence_index=2),
    )
    sentences = tuple(
        Sentence(index=i, text=f"Sentence {i + 1}.", events=(i + 1,)) for i in range(3)
    )
    return ParsedStory(
        text=" ".join(s.text for s in sentences), sentences=sentences, events=events,
        actors=("Ann",),
    )  # fmt: skip


def test_a_closed_state_hides_the_contents_however_the_parse_words_it() -> None:
    # Rules parses put the state in the value ("box / be / closed"); LLM parses often put it
    # in the relation ("box / is closed"). Both close the box, so Ann cannot see the cup.
    for relation, value in (("be", "closed"), ("is closed", None)):
        g = BeliefGraph(_closed_box_story(relation, value))
        assert not any("cup" in b for b in _beliefs(g, "Ann")), (relation, value)
