"""Groups and scenes in the perception model (``solvers.perception``, issue 16).

A group actor ("everyone", or a group the model lists with its members) stands for its
members: what it perceives, the members with it perceive; where it goes, they go, until the
story moves a member on their own. With ``scenes`` on, an act narrated of someone on stage is
seen by those with them, and a jump in time or place opening a sentence starts a new scene.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from beliefgraph.models import Event, ParsedStory, Proposition, Sentence
from beliefgraph.solvers import PerceptionModel, simulate
from beliefgraph.solvers.perception import groups_of

NEWS = Proposition(content_type="Action/Event", subject="party", relation="be", value="cancelled")


def _act(who: str, verb: str) -> Proposition:
    return Proposition(content_type="Action/Event", subject=who, relation=verb)


def _story(events: list[Event], actors: tuple[str, ...], texts: list[str] | None = None):
    n = max((e.sentence_index for e in events), default=-1) + 1
    texts = texts or [f"Sentence {i}." for i in range(n)]
    sentences = tuple(
        Sentence(
            index=i, text=texts[i], events=tuple(e.id for e in events if e.sentence_index == i)
        )
        for i in range(n)
    )
    return ParsedStory(
        text=" ".join(texts), sentences=sentences, events=tuple(events), actors=actors
    )


def _events(*specs: dict) -> list[Event]:
    return [Event(id=i + 1, sentence_index=i, **spec) for i, spec in enumerate(specs)]


# -- groups ---------------------------------------------------------------------------------------
def test_everyone_has_every_other_actor_as_member() -> None:
    story = _story([], ("Ann", "Bob", "everyone in the office"))
    assert groups_of(story, PerceptionModel()) == {
        "everyone in the office": frozenset({"Ann", "Bob"})
    }


def test_listed_groups_are_matched_as_the_story_spells_them() -> None:
    story = _story([], ("Ann", "Bob", "the Team"))
    model = PerceptionModel(groups={"team": ("ANN", "Zed")})
    assert groups_of(story, model) == {"the Team": frozenset({"Ann"})}  # Zed is no actor


def test_what_a_group_is_told_privately_each_member_with_it_hears() -> None:
    # Chen phones the team; Ann is with the team, Bob has gone to the lab on his own.
    events = _events(
        {"kind": "enter", "actors": ("team",), "room": "office"},
        {"kind": "enter", "actors": ("Bob",), "room": "lab"},
        {"kind": "tell", "actors": ("Chen",), "hearers": ("team",), "private": True,
         "proposition": NEWS},
    )  # fmt: skip
    story = _story(events, ("Chen", "Ann", "Bob", "team"))
    tl = simulate(story, PerceptionModel(groups={"team": ("Ann", "Bob")}))
    assert tl.room_of("Ann", 1) == "office"  # she came in with the team
    assert tl.steps[2].perceivers == {"Chen", "team", "Ann"}
    # without the group's members listed, the call reaches the group only
    alone = simulate(story, PerceptionModel())
    assert alone.steps[2].perceivers == {"Chen", "team"}


def test_a_member_who_comes_back_follows_the_group_again() -> None:
    events = _events(
        {"kind": "enter", "actors": ("team",), "room": "office"},
        {"kind": "exit", "actors": ("Ann",), "room": "office"},
        {"kind": "exit", "actors": ("team",), "room": "office"},
        {"kind": "enter", "actors": ("team",), "room": "hall"},
        {"kind": "enter", "actors": ("Ann",), "room": "hall"},
        {"kind": "exit", "actors": ("team",), "room": "hall"},
    )
    story = _story(events, ("Ann", "team"))
    tl = simulate(story, PerceptionModel(groups={"team": ("Ann",)}))
    assert tl.room_of("Ann", 2) is None and tl.room_of("Ann", 4) is None  # on her own
    assert tl.room_of("Ann", 5) == "hall"
    assert tl.room_of("Ann", 6) is None  # back with the team, she leaves with it


def test_a_group_the_story_says_missed_it_misses_it_with_its_members() -> None:
    deaf = Proposition(
        content_type="Contents/Physical State",
        subject="everyone",
        relation="hear",
        value="Leo",
        negated=True,
    )
    events = _events(
        {"kind": "tell", "actors": ("Leo",), "hearers": ("everyone",), "proposition": NEWS},
        {"kind": "narrate", "proposition": deaf},
    )
    story = _story(events, ("Leo", "Ann", "everyone"))
    tl = simulate(story, PerceptionModel())
    assert tl.steps[0].perceivers == {"Leo"}


_ACTORS = ("Ann", "Bob", "Cy", "team")
_PEOPLE = ("Ann", "Bob", "Cy")
_event = st.one_of(
    st.builds(
        lambda who, room: {"kind": "enter", "actors": (who,), "room": room},
        st.sampled_from(_PEOPLE),
        st.sampled_from(("hall", "lab", "the room")),
    ),
    st.builds(lambda who: {"kind": "exit", "actors": (who,)}, st.sampled_from(_PEOPLE)),
    st.builds(
        lambda who, to, private: {
            "kind": "tell",
            "actors": (who,),
            "hearers": (to,),
            "private": private,
            "proposition": NEWS,
        },
        st.sampled_from(_ACTORS),
        st.sampled_from(_ACTORS),
        st.booleans(),
    ),
    st.builds(
        lambda who: {"kind": "narrate", "proposition": _act(who, "laugh")},
        st.sampled_from(_ACTORS),
    ),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_event, min_size=1, max_size=12), st.booleans())
def test_a_member_perceives_through_the_group_only_what_the_group_perceived(
    specs: list[dict], scenes: bool
) -> None:
    # The team stays where it is and its members come and go on their own, so the replay
    # with the members listed and the one without place everybody alike.
    story = _story(_events(*specs), _ACTORS)
    plain = simulate(story, PerceptionModel(scenes=scenes))
    grouped = simulate(story, PerceptionModel(groups={"team": ("Ann", "Bob")}, scenes=scenes))
    for a, b in zip(plain.steps, grouped.steps, strict=True):
        assert a.rooms == b.rooms
        gained = b.perceivers - a.perceivers
        # a member perceives more only through the group, and only what the group perceived
        assert gained <= {"Ann", "Bob"}
        assert not gained or "team" in b.perceivers, (gained, b.event)
        assert a.perceivers <= b.perceivers  # and never less
        # each member with the group perceives what it perceives
        here = b.rooms.get("team")
        if "team" in b.perceivers and here is not None:
            assert {m for m in ("Ann", "Bob") if b.rooms.get(m) == here} <= b.perceivers


# -- scenes ---------------------------------------------------------------------------------------
def test_an_act_narrated_of_someone_on_stage_is_seen_by_those_with_them() -> None:
    events = _events(
        {"kind": "tell", "actors": ("Dad",), "hearers": ("Jie", "Mom"), "proposition": NEWS},
        {"kind": "narrate", "proposition": _act("Dad", "nod")},
        {"kind": "narrate", "proposition": Proposition(
            content_type="Emotion", subject="Dad", relation="feel", value="satisfied")},
    )  # fmt: skip
    story = _story(events, ("Dad", "Jie", "Mom"))
    off = simulate(story, PerceptionModel())
    on = simulate(story, PerceptionModel(scenes=True))
    assert off.steps[1].perceivers == {"Dad"}
    assert on.steps[1].perceivers == {"Dad", "Jie", "Mom"}
    assert on.steps[2].perceivers == {"Dad"}  # a feeling stays his


def test_a_jump_in_time_starts_a_scene_with_only_those_who_take_part() -> None:
    texts = ["Ann and Bob talk.", "The next day, Ann tells Cy the news.", "Ann nods."]
    events = [
        Event(id=1, kind="tell", actors=("Ann",), hearers=("Bob",), proposition=NEWS),
        Event(
            id=2, kind="tell", actors=("Ann",), hearers=("Cy",), proposition=NEWS,
            sentence_index=1,
        ),
        Event(id=3, kind="narrate", proposition=_act("Ann", "nod"), sentence_index=2),
    ]  # fmt: skip
    story = _story(events, ("Ann", "Bob", "Cy"), texts)
    on = simulate(story, PerceptionModel(scenes=True))
    assert on.steps[0].perceivers == {"Ann", "Bob", "Cy"}  # all on stage from the start
    assert on.steps[1].perceivers == {"Ann", "Cy"}  # Bob is not in the next day's scene
    assert on.steps[2].perceivers == {"Ann", "Cy"}
    off = simulate(story, PerceptionModel())
    assert off.steps[1].perceivers == {"Ann", "Bob", "Cy"}


def test_a_time_phrase_opening_the_story_does_not_empty_the_stage() -> None:
    texts = ["On Sunday night, the family gathers.", "Dad says to Jie it is late.", "Mom agrees."]
    events = [
        Event(id=1, kind="narrate", proposition=_act("family", "gather")),
        Event(id=2, kind="tell", actors=("Dad",), hearers=("Jie",), proposition=NEWS,
              sentence_index=1),
        Event(id=3, kind="tell", actors=("Mom",), hearers=("Dad",), proposition=NEWS,
              sentence_index=2),
    ]  # fmt: skip
    story = _story(events, ("Dad", "Jie", "Mom"), texts)
    on = simulate(story, PerceptionModel(scenes=True))
    assert on.steps[1].perceivers == {"Dad", "Jie", "Mom"}


def test_group_settings_are_hashable_and_survive_a_json_round_trip() -> None:
    from beliefgraph import track
    from beliefgraph.graph import BeliefGraph

    model = PerceptionModel(groups={"team": ("Ann",)}, scenes=True)
    assert model.groups == (("team", ("Ann",)),)
    assert hash(model) == hash(PerceptionModel(groups=(("team", ("Ann",)),), scenes=True))
    graph = track("Ann and Bob are in the kitchen. Bob leaves the kitchen.", perception=model)
    assert BeliefGraph.from_json(graph.to_json()).perception == model
