"""The perception replay: per-kind handlers, and who the story says missed an event."""

from __future__ import annotations

from beliefgraph import track
from beliefgraph.models import Event, ParsedStory, Proposition, Sentence
from beliefgraph.solvers import PerceptionModel, check, simulate

WANT = Proposition(content_type="Desire/Intention", subject="Leo", relation="want", value="robot")


def _deaf(relation: str = "hear") -> Proposition:
    return Proposition(
        content_type="Contents/Physical State",
        subject="Mom",
        relation=relation,
        value="Leo",
        negated=True,
    )


class _Recorded:
    """A parser that returns a fixed parse, as a recorded or an LLM parse would."""

    def __init__(self, story: ParsedStory) -> None:
        self.story = story

    def parse(self, text: str) -> ParsedStory:
        return self.story


def _story(*events: Event) -> ParsedStory:
    sentences = tuple(
        Sentence(index=i, text=e.sentence or f"event {e.id}", events=(e.id,))
        for i, e in enumerate(events)
    )
    return ParsedStory(text="", sentences=sentences, events=events, actors=("Leo", "Mom"))


def test_mom_did_not_hear_leo_removes_her_from_the_hearers_through_track() -> None:
    story = _story(
        Event(
            id=1,
            kind="tell",
            actors=("Leo",),
            hearers=("Mom",),
            proposition=WANT,
            sentence="Leo shouts to Mom that he wants the robot.",
        ),
        Event(
            id=2,
            kind="narrate",
            proposition=_deaf(),
            sentence="Mom did not hear Leo.",
            sentence_index=1,
        ),
    )
    graph = track("", parser=_Recorded(story))
    assert graph.events[0].perceivers == ("Leo",)
    assert graph.belief(("Mom",), variable=WANT.variable) is None
    heard = track("", parser=_Recorded(story.model_copy(update={"events": story.events[:1]})))
    assert heard.events[0].perceivers == ("Leo", "Mom")
    assert heard.belief(("Mom",), variable=WANT.variable) is not None


def test_a_deaf_fact_about_someone_else_or_far_away_changes_nothing() -> None:
    tell = Event(id=1, kind="tell", actors=("Leo",), hearers=("Mom",), proposition=WANT)
    far = Event(id=2, kind="stay", actors=("Leo",), sentence_index=1)
    deaf = Event(id=3, kind="narrate", proposition=_deaf(), sentence_index=2)
    timeline = simulate(_story(tell, far, deaf), PerceptionModel())
    assert timeline.steps[0].perceivers == {"Leo", "Mom"}  # two sentences before: not this one


def test_did_not_see_applies_to_any_of_his_events_not_only_tellings() -> None:
    stay = Event(id=1, kind="stay", actors=("Leo",), room="hall")
    blind = Event(id=2, kind="narrate", proposition=_deaf("see"), sentence_index=1)
    story = _story(Event(id=1, kind="enter", actors=("Leo", "Mom"), room="hall"), stay, blind)
    story = story.model_copy(
        update={
            "events": tuple(
                e.model_copy(update={"id": i, "sentence_index": i - 1})
                for i, e in enumerate(story.events, 1)
            )
        }
    )
    steps = simulate(story, PerceptionModel()).steps
    assert "Mom" in steps[0].perceivers and steps[1].perceivers == {"Leo"}


def _talk(*where: str | None) -> ParsedStory:
    """Leo arrives (in ``where[0]``), then says to Mom that he wants the robot.

    Mom's first event is ``where[1]``: None gives her none (the story never places her),
    a room puts her there before Leo speaks.
    """
    events = [Event(id=1, kind="enter", actors=("Leo",), room=where[0])]
    if where[1] is not None:
        events.append(Event(id=2, kind="stay", actors=("Mom",), room=where[1]))
    events.append(
        Event(id=len(events) + 1, kind="tell", actors=("Leo",), hearers=("Mom",), proposition=WANT)
    )
    events = [e.model_copy(update={"sentence_index": i}) for i, e in enumerate(events)]
    return _story(*events)


def test_an_addressee_the_story_never_places_is_with_the_speaker() -> None:
    timeline = simulate(_talk("kitchen", None), PerceptionModel())
    assert timeline.initial_rooms["Mom"] == "kitchen"  # with Leo when he speaks, from the start
    assert timeline.steps[0].perceivers == {"Leo", "Mom"}  # so she sees him come in
    graph = track("", parser=_Recorded(_talk("kitchen", None)))
    assert check(graph).consistent  # hearer_present no longer objects


def test_an_addressee_the_story_places_elsewhere_stays_there() -> None:
    timeline = simulate(_talk("kitchen", "garden"), PerceptionModel())
    assert timeline.room_of("Mom", 3) == "garden"  # the story says otherwise: another room
    report = check(track("", parser=_Recorded(_talk("kitchen", "garden"))))
    assert not report.consistent and "hearer_present" in report.explain()
    private = _talk("kitchen", None)
    call = private.events[-1].model_copy(update={"private": True})  # a phone call
    story = private.model_copy(update={"events": (*private.events[:-1], call)})
    assert simulate(story, PerceptionModel()).initial_rooms["Mom"] == "the room"


def test_where_people_come_and_go_the_story_places_them() -> None:
    # "Leo went to the kitchen. Leo returned. Leo told Mom ...": no guessing who is where.
    events = (
        Event(id=1, kind="enter", actors=("Leo",), room="kitchen", sentence_index=0),
        Event(id=2, kind="enter", actors=("Leo",), sentence_index=1),
        Event(id=3, kind="tell", actors=("Leo",), hearers=("Mom",), proposition=WANT,
              sentence_index=2),
    )  # fmt: skip
    assert simulate(_story(*events), PerceptionModel()).initial_rooms["Mom"] == "the room"


# -- a label's default and a real look (QA report 21:38; docs/concepts.md, Perception) -------
_LABELLED = (
    "Anna is in the living room. The label on the box is candy. Anna opens the box. {look} "
    "Anna closes the box."
)


def test_seeing_inside_a_labelled_box_overrides_the_label() -> None:
    for look in ("There is a pencil in the box.", "Anna sees that there is a pencil in the box."):
        g = track(_LABELLED.format(look=look))
        b = g.belief(("Anna",), variable=("box", "contains"))
        assert b is not None and b.proposition.value == "pencil", look
        assert b.mental_source == "Perception" and b.truth_status == "True"
        # before the look she takes the label's word for it
        before = g.belief(("Anna",), variable=("box", "contains"), at=2)
        assert before is not None and before.proposition.value == "candy"
        assert g.ask("What does Anna think is in the box?").value == "pencil"


def test_whoever_enters_the_room_of_a_labelled_box_takes_the_labels_word() -> None:
    g = track(
        _LABELLED.format(look="There is a pencil in the box.") + " Ben enters the living room."
    )
    assert g.ask("What does Ben think is in the box?").value == "candy"
    assert g.ask("What does Anna think Ben thinks is in the box?").value == "candy"
    assert g.ask("What does Anna think is in the box?").value == "pencil"  # her look stands


def test_seeing_a_thing_taken_out_shows_the_container_no_longer_holds_it() -> None:
    g = track(
        _LABELLED.format(look="There is a pencil in the box.")
        + " Anna takes the pencil out of the box and puts it in the drawer."
    )
    assert g.belief(("Anna",), variable=("box", "contains")) is None
    a = g.ask("What does Anna think is in the box?")
    assert a.value == "nothing" and a.explanation[-1] == "So Anna believes nothing is in the box."
    assert g.ask("What is in the box?").value == "nothing"
