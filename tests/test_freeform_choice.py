"""Choosing among several options the story implies (``grounding.freeform``, since stop 14):
the one that names a thing new to someone the question names (the graph's perception
model), else the one whose evidence includes every other's; otherwise still unanswered.
Hand-built parses and groundings; the recorded figures are in ``test_freeform_recorded.py``.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from beliefgraph.graph import BeliefGraph
from beliefgraph.grounding import RowEvidence
from beliefgraph.grounding.freeform import FreeQuestion, choose_by_access
from beliefgraph.models import Event, ParsedStory, Proposition

SENTENCES = (
    "Ann and Bo see the ball in the box.",
    "Ann leaves the room.",
    "Bo sees the kite in the box.",
    "Ann comes back and says: look at that toy!",
)


def _seen(i: int, who: tuple[str, ...], thing: str, n: int) -> Event:
    p = Proposition(content_type="Location", subject=thing, relation="in", value="box")
    return Event(
        id=i, kind="observe", actors=who, proposition=p, sentence_index=n, sentence=SENTENCES[n]
    )


def _graph(ann: str = "Ann") -> BeliefGraph:
    """The story above, with Ann called ``ann``."""
    events = (
        Event(
            id=1,
            kind="enter",
            actors=(ann, "Bo"),
            room="room",
            sentence_index=0,
            sentence=SENTENCES[0],
        ),
        _seen(2, (ann, "Bo"), "ball", 0),
        Event(
            id=3, kind="exit", actors=(ann,), room="room", sentence_index=1, sentence=SENTENCES[1]
        ),
        _seen(4, ("Bo",), "kite", 2),
        Event(
            id=5,
            kind="enter",
            actors=(ann,),
            room="room",
            sentence_index=3,
            sentence=SENTENCES[3],
        ),
    )
    story = ParsedStory(text=" ".join(SENTENCES), sentences=(), actors=(ann, "Bo"), events=events)
    return BeliefGraph(story)


QUESTION = FreeQuestion(
    text="What does Bo most likely do?",
    options=("Bo gives Ann the ball", "Bo gives Ann the kite"),
    holder="Bo",
)


def _implied(*sentences: list[int]) -> list[RowEvidence]:
    return [RowEvidence(row=i, sentences=s, support="not_stated") for i, s in enumerate(sentences)]


def test_the_thing_new_to_the_speaker_is_the_one_meant() -> None:
    got = choose_by_access(_graph(), QUESTION, _implied([1, 3, 4], [1, 3, 4]))
    assert got.index == 1
    assert "new to Ann" in got.explanation[-1]


def test_a_name_inside_another_word_names_no_one() -> None:
    """ "Al" is not named by "also" or "pals": with no one else named, novelty decides nothing."""
    q = FreeQuestion(
        text="What does Bo also most likely do with his pals?",
        options=("Bo gives over the ball", "Bo gives over the kite"),
        holder="Bo",
    )
    assert choose_by_access(_graph("Al"), q, _implied([1, 3, 4], [1, 3, 4])).index is None
    named = q.model_copy(update={"text": "What does Bo also most likely do for Al?"})
    got = choose_by_access(_graph("Al"), named, _implied([1, 3, 4], [1, 3, 4]))
    assert got.index == 1 and "new to Al" in got.explanation[-1]


def test_the_reading_whose_evidence_includes_the_others_wins() -> None:
    q = FreeQuestion(
        text="Why does Bo smile?", options=("He likes balls", "He likes kites"), holder="Bo"
    )
    got = choose_by_access(_graph(), q, _implied([1], [1, 3]))
    assert got.index == 1
    assert "include the evidence" in got.explanation[-1]


def test_readings_resting_on_different_evidence_stay_unanswered() -> None:
    q = FreeQuestion(
        text="Why does Bo smile?", options=("He likes balls", "He likes kites"), holder="Bo"
    )
    got = choose_by_access(_graph(), q, _implied([1], [3]))
    assert got.index is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(1, 4), max_size=4), min_size=2, max_size=4))
def test_a_covering_choice_includes_every_other_implied_options_evidence(
    cited: list[list[int]],
) -> None:
    """Whatever the links, a choice made by coverage rests on a strict superset of every
    other option's evidence, and no option is chosen when two rest on the same sentences."""
    options = tuple(f"He likes thing {i}" for i in range(len(cited)))
    q = FreeQuestion(text="Why does Bo smile?", options=options, holder="Bo")
    got = choose_by_access(_graph(), q, _implied(*cited))
    if got.index is None or not any("include the evidence" in x for x in got.explanation):
        return
    mine = set(cited[got.index])
    for j, other in enumerate(cited):
        if j != got.index and other:
            assert set(other) < mine
