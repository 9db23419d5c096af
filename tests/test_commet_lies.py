"""Lies about where a thing went (``reasoning.deception.whereabouts``), worded otherwise than
the speaker's belief: "maybe the cat dragged it away" from the one who pocketed it (invented
wordings of the kind CoMMET's deception StoryTurns use); hand-built parses."""

from __future__ import annotations

from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Event, ParsedStory, Proposition
from beliefgraph.reasoning import LyingQuery, answer_query, lying


def _p(
    subject: str, relation: str, value: str, *, kind: str = "Action/Event", negated: bool = False
) -> Proposition:
    return Proposition(
        content_type=kind, subject=subject, relation=relation, value=value, negated=negated
    )  # type: ignore[arg-type]


def _loc(where: str, *, negated: bool = False) -> Proposition:
    return _p("sticker", "in", where, kind="Location", negated=negated)


def _graph(*said: Event) -> BeliefGraph:
    events = (
        Event(
            id=1,
            kind="move",
            actors=("Green",),
            obj="sticker",
            destination="desk",
            proposition=_loc("desk"),
            sentence_index=0,
        ),
        Event(id=2, kind="exit", actors=("Green",), room="the room", sentence_index=1),
        Event(
            id=3,
            kind="move",
            actors=("Leo",),
            obj="sticker",
            destination="pocket",
            proposition=_loc("pocket"),
            sentence_index=2,
        ),
        Event(id=4, kind="enter", actors=("Green",), room="the room", sentence_index=3),
        Event(
            id=5,
            kind="observe",
            actors=("Green",),
            proposition=_loc("desk", negated=True),
            sentence_index=3,
        ),
        *said,
    )
    return BeliefGraph(ParsedStory(text="", sentences=(), actors=("Green", "Leo"), events=events))


def _tell(i: int, who: str, to: str, p: Proposition) -> Event:
    return Event(id=i, kind="tell", actors=(who,), hearers=(to,), proposition=p, sentence_index=i)


def test_the_pocketer_blaming_the_cat_lies() -> None:
    g = _graph(_tell(6, "Leo", "Green", _p("cat", "dragged away", "sticker")))
    read = lying(g, g.events[5])
    assert read.value is True
    assert "pocket" in read.because[0]


def test_denying_knowing_where_it_went_while_holding_it_is_a_lie() -> None:
    denial = _p("Leo", "know", "where the sticker went", kind="Epistemic", negated=True)
    g = _graph(_tell(6, "Leo", "Green", denial))
    assert lying(g, g.events[5]).value is True


def test_one_who_saw_it_gone_repeating_the_story_does_not_lie() -> None:
    """Mrs. Green found the desk empty: she believes no place for it, so "it is gone" and
    "the cat dragged it away" are not lies."""
    g = _graph(
        _tell(6, "Green", "Leo", _p("sticker", "be", "gone", kind="Contents/Physical State")),
        _tell(7, "Green", "Leo", _p("cat", "dragged away", "sticker")),
    )
    assert lying(g, g.events[5]).value is False
    assert lying(g, g.events[6]).value is False


def test_telling_the_place_one_believes_is_no_lie() -> None:
    g = _graph(_tell(6, "Leo", "Green", _p("sticker", "is hidden in", "pocket")))
    assert lying(g, g.events[5]).value is False


def test_a_question_about_the_claim_finds_the_utterance_worded_otherwise() -> None:
    """The question reads the claim as a place ("the sticker is outside"); the speaker worded it
    as an event. The assertion about the same placed thing is the one judged."""
    g = _graph(_tell(6, "Leo", "Green", _p("cat", "dragged away", "sticker")))
    q = LyingQuery(speaker="Leo", hearer="Green", claim=_loc("outside"), which="earliest")
    assert answer_query(g, [], q).value is True


def test_a_verb_of_one_story_is_no_word_of_a_thing_gone() -> None:
    """ "blew" alone says nothing about where a thing went ("the fan blew on the sticker");
    the general words ("away", "out of", "gone") do."""
    g = _graph(_tell(6, "Leo", "Green", _p("fan", "blew on", "sticker")))
    assert lying(g, g.events[5]).value is False
    g = _graph(_tell(6, "Leo", "Green", _p("fan", "blew away", "sticker")))
    assert lying(g, g.events[5]).value is True
