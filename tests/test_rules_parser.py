"""Tests of the offline rules parser on real benchmark sentences and classic prose."""

from __future__ import annotations

import json
import os
import re
import warnings
from pathlib import Path

import pytest

from beliefgraph import track
from beliefgraph.errors import UnparsedSentenceError
from beliefgraph.models import Entity, Proposition
from beliefgraph.parsers import RulesParser, make_rules_parser
from beliefgraph.registry import parsers
from beliefgraph.text import segment

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


def _benchmarks() -> Path:
    root = os.environ.get("BELIEFGRAPH_BENCHMARKS")
    path = Path(root) if root else Path(__file__).resolve().parents[2] / "shared" / "benchmarks"
    if not path.is_dir():
        pytest.skip(f"benchmark data not found at {path} (set BELIEFGRAPH_BENCHMARKS)")
    return path


def _loc(obj: str, place: str, negated: bool = False) -> Proposition:
    return Proposition(
        content_type="Location", subject=obj, relation="in", value=place, negated=negated
    )


def _contains(box: str, thing: str, negated: bool = False) -> Proposition:
    return Proposition(
        content_type="Contents/Physical State",
        subject=box,
        relation="contains",
        value=thing,
        negated=negated,
    )


def _fields(event) -> dict:
    return {f: getattr(event, f) for f in FIELDS if getattr(event, f) not in (None, (), False)}


def _parse(text: str, **kw):
    return RulesParser(**kw).parse(text)


# -- data files ----------------------------------------------------------------------------


def _tomi_stories(path: Path) -> list[str]:
    stories: list[list[str]] = []
    for raw in path.read_text().splitlines():
        if raw.strip() and "\t" not in raw:
            if raw.split(" ", 1)[0] == "1":
                stories.append([])
            stories[-1].append(raw)
    return ["\n".join(s) for s in stories]


def _hitom_stories(root: Path) -> list[str]:
    data = json.loads((root / "hitom" / "Hi-ToM_data.json").read_text())["data"]
    return [item["story"] for item in data]


def _tombench_stories(root: Path) -> list[str]:
    path = root / "tombench" / "data" / "False Belief Task.jsonl"
    lines = path.read_text().splitlines()
    return [json.loads(re.sub(r"\bNaN\b", "null", ln))["STORY"] for ln in lines if ln.strip()]


def _in_data(texts: list[str], sentence: str) -> None:
    assert any(sentence in t for t in texts), f"fixture sentence not in the data: {sentence!r}"


@pytest.fixture(scope="module")
def tomi() -> list[str]:
    path = _benchmarks() / "tomi" / "tomi_balanced_story_types" / "fb_all_train.txt"
    return _tomi_stories(path)


@pytest.fixture(scope="module")
def hitom() -> list[str]:
    return _hitom_stories(_benchmarks())


@pytest.fixture(scope="module")
def tombench() -> list[str]:
    return _tombench_stories(_benchmarks())


# -- ToMi ----------------------------------------------------------------------------------


def test_tomi_first_story_exact_events(tomi):
    story = _parse(tomi[0])
    trait = Proposition(
        content_type="Trait/Value", subject="Oliver", relation="dislike", value="kitchen"
    )
    assert [_fields(e) for e in story.events] == [
        {"kind": "narrate", "proposition": trait},
        {"kind": "enter", "actors": ("Carter",), "room": "porch"},
        {"kind": "enter", "actors": ("Abigail",), "room": "porch"},
        {
            "kind": "narrate",
            "obj": "potato",
            "destination": "green_suitcase",
            "proposition": _loc("potato", "green_suitcase"),
        },
        {"kind": "exit", "actors": ("Abigail",), "room": "porch"},
        {"kind": "enter", "actors": ("Abigail",), "room": "hall"},
        {
            "kind": "move",
            "actors": ("Carter",),
            "obj": "potato",
            "destination": "green_envelope",
            "proposition": _loc("potato", "green_envelope"),
        },
        {"kind": "enter", "actors": ("Oliver",), "room": "hall"},
    ]
    assert [e.id for e in story.events] == list(range(1, 9))
    assert [e.line for e in story.events] == list(range(1, 9))
    assert [e.sentence_index for e in story.events] == list(range(8))
    assert story.events[0].sentence == "Oliver dislikes the kitchen"
    assert story.events[1].sentence == "Carter entered the porch."
    assert {e.parser for e in story.events} == {"rules"} and story.parser == "rules"
    assert story.actors == ("Oliver", "Carter", "Abigail")
    assert story.entities == (
        Entity(name="porch", kind="room"),
        Entity(name="potato", kind="object"),
        Entity(name="green_suitcase", kind="container"),
        Entity(name="hall", kind="room"),
        Entity(name="green_envelope", kind="container"),
    )


def test_tomi_keeps_spelling_of_tv_room(tomi):
    _in_data(tomi, "entered the TV_room.")
    event = _parse("Jack entered the TV_room.").events[0]
    assert (event.kind, event.room) == ("enter", "TV_room")


@pytest.mark.slow
def test_tomi_every_sentence_parses(tomi):
    parser = RulesParser()
    for text in tomi:
        story = parser.parse(text)  # strict: raises on any unread sentence
        assert all(s.parsed for s in story.sentences)


# -- Hi-ToM --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "Avery, Charlotte, Isabella, Elizabeth and Owen entered the living_room.",
            {
                "kind": "enter",
                "actors": ("Avery", "Charlotte", "Isabella", "Elizabeth", "Owen"),
                "room": "living_room",
            },
        ),
        (
            "Isabella made no movements and stayed in the living_room for 1 minute.",
            {"kind": "stay", "actors": ("Isabella",), "room": "living_room"},
        ),
        (
            "Avery privately told Abigail that the lemon is in the green_drawer.",
            {
                "kind": "tell",
                "actors": ("Avery",),
                "hearers": ("Abigail",),
                "private": True,
                "obj": "lemon",
                "proposition": _loc("lemon", "green_drawer"),
            },
        ),
        (
            "Avery publicly claimed that turnip is in the blue_pantry.",
            {
                "kind": "tell",
                "actors": ("Avery",),
                "obj": "turnip",
                "proposition": _loc("turnip", "blue_pantry"),
            },
        ),
        (
            "Elizabeth dislikes the tangerine.",
            {
                "kind": "narrate",
                "proposition": Proposition(
                    content_type="Trait/Value",
                    subject="Elizabeth",
                    relation="dislike",
                    value="tangerine",
                ),
            },
        ),
        (
            "Jacob lost his watch.",
            {
                "kind": "narrate",
                "proposition": Proposition(
                    content_type="Action/Event", subject="Jacob", relation="lose", value="watch"
                ),
            },
        ),
        (
            "Avery saw a dog.",
            {
                "kind": "narrate",
                "proposition": Proposition(
                    content_type="Action/Event", subject="Avery", relation="see", value="dog"
                ),
            },
        ),
    ],
)
def test_hitom_sentences(hitom, sentence, expected):
    _in_data(hitom, sentence)
    (event,) = _parse(sentence).events
    assert _fields(event) == expected


def test_hitom_instruction_preamble_is_kept_without_events(hitom):
    text = next(t for t in hitom if t.startswith("Read the following story"))
    story = _parse(text)
    first, second, third = story.sentences[:3]
    assert first.text.startswith("Read the following story") and first.line is None
    assert first.parsed and first.events == () and second.events == ()
    assert third.line == 1 and story.events[0].line == 1 and story.events[0].id == 1


def test_hitom_separator_line_is_not_a_sentence(hitom):
    text = next(t for t in hitom if "***" in t)
    assert all("*" not in s.text for s in _parse(text).sentences)


@pytest.mark.slow
def test_hitom_every_sentence_parses(hitom):
    parser = RulesParser()
    for text in hitom:
        assert parser.parse(text).coverage == 1.0


# -- ToMBench false belief -----------------------------------------------------------------

LOCATION_FB = (
    "Xiao Li and Youyou are wandering in the basement, they see a suitcase, a backpack, and a "
    "storage locker, they find a hat in the suitcase, Youyou leaves the basement, Xiao Li "
    "moves the hat to the storage locker."
)
CONTENT_FB = (
    "Xiao Li finds a box in the basement, the label on the box is a hat, Xiao Li cannot see "
    "what is inside the box, Xiao Li opens the box and finds a cup, there is no hat in the "
    "box, Xiao Li closes the box and puts it back in its place, Youyou enters the basement "
    "and sees the box."
)


def test_tombench_location_false_belief(tombench):
    _in_data(tombench, LOCATION_FB)
    story = _parse(LOCATION_FB)
    group = ("Xiao Li", "Youyou")
    assert [s.text for s in story.sentences] == [
        "Xiao Li and Youyou are wandering in the basement",
        "they see a suitcase, a backpack, and a storage locker",
        "they find a hat in the suitcase",
        "Youyou leaves the basement",
        "Xiao Li moves the hat to the storage locker.",
    ]
    assert [_fields(e) for e in story.events] == [
        {"kind": "enter", "actors": group, "room": "basement"},
        {"kind": "observe", "actors": group, "obj": "suitcase"},
        {"kind": "observe", "actors": group, "obj": "backpack"},
        {"kind": "observe", "actors": group, "obj": "storage locker"},
        {
            "kind": "observe",
            "actors": group,
            "obj": "hat",
            "destination": "suitcase",
            "proposition": _loc("hat", "suitcase"),
        },
        {"kind": "exit", "actors": ("Youyou",), "room": "basement"},
        {
            "kind": "move",
            "actors": ("Xiao Li",),
            "obj": "hat",
            "destination": "storage locker",
            "proposition": _loc("hat", "storage locker"),
        },
    ]
    # One comma-spliced sentence: its five clauses share the segmenter's sentence 1.
    assert [e.sentence_index for e in story.events] == [0, 0, 0, 0, 0, 0, 0]
    assert [s.index for s in story.sentences] == [0, 0, 0, 0, 0]
    assert story.sentences[1].events == (2, 3, 4)
    assert all(e.line is None for e in story.events)


def test_tombench_content_false_belief(tombench):
    _in_data(tombench, CONTENT_FB)
    story = _parse(CONTENT_FB)
    see_inside = Proposition(
        content_type="Contents/Physical State",
        subject="Xiao Li",
        relation="see inside",
        value="box",
        negated=True,
    )
    assert [_fields(e) for e in story.events] == [
        {"kind": "observe", "actors": ("Xiao Li",), "obj": "box", "room": "basement"},
        {"kind": "label", "obj": "box", "proposition": _contains("box", "hat")},
        {"kind": "narrate", "proposition": see_inside},
        {"kind": "open", "actors": ("Xiao Li",), "obj": "box"},
        {
            "kind": "observe",
            "actors": ("Xiao Li",),
            "obj": "cup",
            "destination": "box",
            "proposition": _contains("box", "cup"),
        },
        {"kind": "narrate", "proposition": _contains("box", "hat", negated=True)},
        {"kind": "close", "actors": ("Xiao Li",), "obj": "box"},
        {"kind": "enter", "actors": ("Youyou",), "room": "basement"},
        {"kind": "observe", "actors": ("Youyou",), "obj": "box"},
    ]
    assert story.entities[:2] == (
        Entity(name="basement", kind="room"),
        Entity(name="box", kind="container"),
    )


def test_tombench_plurals_name_one_entity(tombench):
    text = next(t for t in tombench if "they see backpacks and safes" in t)
    story = _parse(text)
    assert [e.obj for e in story.events if e.kind == "observe"][:2] == ["backpack", "safe"]
    move = story.events[-1]
    assert (move.obj, move.destination) == ("raincoat", "safe")
    assert story.events[3].proposition == _loc("raincoat", "backpack")


def test_tombench_multiword_names(tombench):
    text = next(t for t in tombench if t.startswith("Xiao Bei and Han Mei Mei"))
    assert _parse(text).actors == ("Xiao Bei", "Han Mei Mei")


def test_tombench_fb_coverage(tombench):
    parser = RulesParser(strict=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = sum(parser.parse(t).coverage == 1.0 for t in tombench)
    assert full / len(tombench) >= 0.95


# -- classic prose -------------------------------------------------------------------------

SALLY_ANNE = (
    "Sally has a basket. Anne has a box. Sally puts a marble in her basket. "
    "Sally goes out for a walk. Anne takes the marble out of the basket and puts it into the "
    "box. Sally comes back."
)


def test_sally_anne():
    story = _parse(SALLY_ANNE)
    have = Proposition(
        content_type="Identity/Relation", subject="Sally", relation="have", value="basket"
    )
    assert [_fields(e) for e in story.events] == [
        {"kind": "narrate", "proposition": have},
        {
            "kind": "narrate",
            "proposition": have.model_copy(update={"subject": "Anne", "value": "box"}),
        },
        {
            "kind": "move",
            "actors": ("Sally",),
            "obj": "marble",
            "destination": "basket",
            "proposition": _loc("marble", "basket"),
        },
        {"kind": "exit", "actors": ("Sally",)},
        {
            "kind": "move",
            "actors": ("Anne",),
            "obj": "marble",
            "origin": "basket",
            "destination": "box",
            "proposition": _loc("marble", "box"),
        },
        {"kind": "enter", "actors": ("Sally",)},
    ]
    assert story.actors == ("Sally", "Anne")
    assert [(x.name, x.kind) for x in story.entities] == [
        ("basket", "container"),
        ("box", "container"),
        ("marble", "object"),
    ]


def test_alice_bob_comma_spliced():
    story = _parse(
        "Alice and Bob are in a room with a box and a basket. Alice places a ball in the box, "
        "Bob leaves, and Alice then moves the ball to the basket."
    )
    assert [_fields(e) for e in story.events] == [
        {"kind": "enter", "actors": ("Alice", "Bob"), "room": "room"},
        {"kind": "observe", "actors": ("Alice", "Bob"), "obj": "box"},
        {"kind": "observe", "actors": ("Alice", "Bob"), "obj": "basket"},
        {
            "kind": "move",
            "actors": ("Alice",),
            "obj": "ball",
            "destination": "box",
            "proposition": _loc("ball", "box"),
        },
        {"kind": "exit", "actors": ("Bob",)},
        {
            "kind": "move",
            "actors": ("Alice",),
            "obj": "ball",
            "destination": "basket",
            "proposition": _loc("ball", "basket"),
        },
    ]
    assert len(story.sentences) == 4


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Anne secretly moves the marble from the basket to the box while Sally is away.",
            [
                {
                    "kind": "move",
                    "actors": ("Anne",),
                    "obj": "marble",
                    "origin": "basket",
                    "destination": "box",
                    "proposition": _loc("marble", "box"),
                }
            ],
        ),
        (
            "Sally walks into the kitchen. Sally can't see inside the box. Sally leaves.",
            [
                {"kind": "enter", "actors": ("Sally",), "room": "kitchen"},
                {
                    "kind": "narrate",
                    "proposition": Proposition(
                        content_type="Contents/Physical State",
                        subject="Sally",
                        relation="see inside",
                        value="box",
                        negated=True,
                    ),
                },
                {"kind": "exit", "actors": ("Sally",)},
            ],
        ),
        (
            "Max opens the drawer and finds a plate and a ruler.",
            [
                {"kind": "open", "actors": ("Max",), "obj": "drawer"},
                {
                    "kind": "observe",
                    "actors": ("Max",),
                    "obj": "plate",
                    "destination": "drawer",
                    "proposition": _contains("drawer", "plate"),
                },
                {
                    "kind": "observe",
                    "actors": ("Max",),
                    "obj": "ruler",
                    "destination": "drawer",
                    "proposition": _contains("drawer", "ruler"),
                },
            ],
        ),
    ],
)
def test_prose_variants(text, expected):
    assert [_fields(e) for e in _parse(text).events] == expected


def test_narrated_object_in_box():
    (event,) = _parse("There is an object in a box.").events
    assert _fields(event) == {
        "kind": "narrate",
        "obj": "object",
        "destination": "box",
        "proposition": _loc("object", "box"),
    }


# -- pronouns ------------------------------------------------------------------------------


def test_pronouns_resolve():
    story = _parse(
        "Sally and Anne are in the kitchen. They see a box. Sally has a marble. "
        "She puts it in the box. Anne leaves. She comes back."
    )
    see, move, leave, back = story.events[1], story.events[3], story.events[4], story.events[5]
    assert see.actors == ("Sally", "Anne")
    assert (move.actors, move.obj, move.destination) == (("Sally",), "marble", "box")
    assert leave.actors == ("Anne",) and back.actors == ("Anne",)


def test_unresolvable_pronoun_is_unparsed():
    with pytest.raises(UnparsedSentenceError) as err:
        _parse("She puts the marble in the box.")
    assert err.value.index == 0


# -- strictness ----------------------------------------------------------------------------


def test_strict_error_names_sentence_and_line():
    text = "1 Ella entered the garage.\n2 Ella moved oranges aside.\n3 Ella exited the garage."
    with pytest.raises(UnparsedSentenceError, match="line 2") as err:
        _parse(text)
    assert (err.value.sentence, err.value.index, err.value.line) == (
        "Ella moved oranges aside.",
        1,
        2,
    )
    assert "Ella moved oranges aside." in str(err.value)


def test_non_strict_warns_and_keeps_fact():
    text = "1 Ella entered the garage.\n2 Ella moved oranges aside.\n3 Ella exited the garage."
    with pytest.warns(UserWarning, match="Ella moved oranges aside"):
        story = _parse(text, strict=False)
    assert [e.kind for e in story.events] == ["enter", "narrate", "exit"]
    unread = story.sentences[1]
    assert not unread.parsed and unread.events == (2,) and story.unparsed == (unread,)
    assert story.events[1].proposition == Proposition(
        content_type="Action/Event",
        subject="world",
        relation="state",
        value="Ella moved oranges aside.",
    )
    assert story.events[1].line == 2 and story.events[2].id == 3
    with pytest.warns(UserWarning, match="line 2"):  # a cached story warns again
        assert _parse(text, strict=False) is story


# -- registry ------------------------------------------------------------------------------


def test_registered_factory():
    # Compared by name: a doctest run may import the package a second time as "parsers".
    factory = parsers.get("rules")
    assert factory.__name__ == make_rules_parser.__name__
    assert parsers.get("beliefgraph.rules_parser.v1") is factory
    parser = factory(strict=False)
    assert type(parser).__name__ == "RulesParser" and not parser.strict
    assert make_rules_parser().strict


def test_repeated_parse_is_identical():
    assert _parse(LOCATION_FB) == _parse(LOCATION_FB)


def test_strict_error_names_every_unread_sentence():
    text = "Ella entered the garage. Ella moved oranges aside.\nElla moved past. " + "Ella exited."
    with pytest.raises(UnparsedSentenceError) as err:
        _parse(text)
    assert [(s, i, line) for s, i, line, _ in err.value.unread] == [
        ("Ella moved oranges aside.", 1, 1),
        ("Ella moved past.", 2, 2),
    ]
    assert err.value.sentence == "Ella moved oranges aside."
    assert "2 sentences" in str(err.value) and "line 2: 'Ella moved past.'" in str(err.value)


def test_clause_cap_is_named_and_long_chains_are_linear():
    from beliefgraph.parsers.rules.frames import MAX_CLAUSES

    verbs = ["enters the kitchen", "exits the kitchen"]
    ok = "Sally " + " and ".join(verbs[i % 2] for i in range(40)) + "."
    assert len(_parse(ok).events) == 40
    too_long = "Sally " + " and ".join(verbs[i % 2] for i in range(MAX_CLAUSES + 1)) + "."
    with pytest.raises(UnparsedSentenceError, match="at most 100"):
        _parse(too_long)


def test_sentence_numbers_are_the_segmenters_and_clauses_share_them() -> None:
    # Issue 14's gap: "sentence N" counted clauses, so it drifted after a comma splice.
    text = "Tom went out, Ann came in. Zed moved the gizmo sideways, Ann left. Ann came in."
    with pytest.warns(UserWarning, match="sentence 2: 'Zed moved"):
        story = RulesParser(strict=False).parse(text)
    assert [(s.index, s.text) for s in story.sentences] == [
        (0, "Tom went out"),
        (0, "Ann came in."),
        (1, "Zed moved the gizmo sideways"),
        (1, "Ann left."),
        (2, "Ann came in."),
    ]
    assert [s.index - 1 for s in segment(text)] == [0, 1, 2]
    assert [e.sentence_index for e in story.events] == [0, 0, 1, 1, 2]
    with pytest.raises(UnparsedSentenceError) as err:
        RulesParser().parse(text)
    assert err.value.index == 1  # the segmenter's sentence 2 (the message names its line)
    assert "line 1: 'Zed moved the gizmo sideways'" in str(err.value)


def test_explanations_cite_the_segmenters_sentence_numbers() -> None:
    text = (
        "Sally and Anne were in the room, Sally put the ball in the basket. Sally went out. "
        "Anne moved the ball to the box. Zed moved the ball sideways."
    )
    with pytest.warns(UserWarning):
        graph = track(text, strict=False)
    answer = graph.ask("Where will Sally look for the ball?")
    assert answer.value == "basket"
    assert answer.explanation[0].startswith('Sally perceived sentence 1 ("Sally put the ball')
    assert answer.explanation[1].startswith('Sally did not perceive sentence 3 ("Anne moved')
    assert answer.rests_on_unread == (3,)
    assert "sentence 4 ('Zed moved the ball sideways.')" in answer.explanation[-1]
