"""The ToMATO and DialToM graph paths under a model's parse of the dialogue (``parser="llm"``).

A model types what each turn says and may give one turn several items (an utterance and a
stated feeling), so the graph has one or more events per turn. A local stub server answers
as the model; the tests check that the adapters read each turn's words, the model's readings
and the trust edges by turn, whatever the number of events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from beliefgraph.adapters.dialogue import on_events, run_dialogue_graph, turn_words
from beliefgraph.adapters.item import Item
from beliefgraph.adapters.tomato import _build, align_options, anchor_turn, model_readings
from beliefgraph.api import using_parser
from beliefgraph.dialogue import dialogue_story
from beliefgraph.errors import DataFormatError
from beliefgraph.models import TrustEdge
from beliefgraph.parsers.llm import LLMParser
from beliefgraph.solvers.trust import EdgeTrust

if TYPE_CHECKING:
    from llm_fixtures import StubServer

pytest_plugins = ["llm_fixtures"]
pytestmark = pytest.mark.usefixtures("offline")

CONVERSATION = (
    'Al Bo: "Hi!"\nCy Do: "Hi, how are you?"\nAl Bo: "I lost my job, so money is tight."\n'
    'Cy Do: "I am sorry. Could you still chip in for the trip?"\nAl Bo: "Sorry, I cannot."'
)
PARSE = {
    "actors": ["Al Bo", "Cy Do"],
    "items": [
        {"type": "utterance", "sentence": 3, "speaker": "Al Bo",
         "content": {"content_type": "Action/Event", "subject": "Al Bo", "relation": "lose",
                     "value": "his job"}},
        {"type": "mental_state", "sentence": 3, "holder": "Al Bo", "state": "emotion",
         "relation": "feel", "value": "worried about money"},
        {"type": "utterance", "sentence": 4, "speaker": "Cy Do", "force": "request",
         "content": {"subject": "Al Bo", "relation": "pay", "value": "for the trip"}},
    ],
    "beliefs": [
        {"holders": ["Cy Do", "Al Bo"], "proposition": "Al Bo is embarrassed to refuse",
         "claim": {"content_type": "Emotion", "subject": "Al Bo", "relation": "feel",
                   "value": "embarrassed"},
         "evidence": [5], "how": "inferred"},
    ],
}  # fmt: skip


def _parser(stub: StubServer) -> LLMParser:
    return LLMParser(base_url=stub.base_url, model="stub", cache=False, strict=False)


def _item(question: str, choices: tuple[str, ...]) -> Item:
    return Item(id="q", story=CONVERSATION, question=question, choices=choices,
                answer=choices[0], meta={"holder": "Cy", "target": "Al", "u_id": "1",
                "utterance": "I am sorry. Could you still chip in for the trip?",
                "mental_state": "emotion", "order": 2})  # fmt: skip


def test_a_turn_with_several_events_keeps_its_words_and_its_place(stub: StubServer) -> None:
    stub.script(PARSE)
    item = _item("?", ("a", "b", "c", "d"))
    with using_parser(_parser(stub)):
        graph = _build(item)
    assert [e.sentence_index for e in graph.events] == [0, 1, 2, 2, 3, 4]
    assert turn_words(graph)[2] == "I lost my job, so money is tight."
    assert anchor_turn(item, graph) == 3  # the quote is found in the transcript's words
    # The holder's perspective at turn 3 holds the model's reading of the turn before it.
    read = model_readings(item, graph, "Cy Do", "Al Bo")
    assert "feel worried about money" in read[2]
    assert any("pay" in r and "trip" in r for r in read[3])
    assert read[4] == ["Al Bo is embarrassed to refuse"]


def test_the_models_reading_moves_an_option_to_its_turn(stub: StubServer) -> None:
    # The option's words are in no turn; only the model's reading of turn 3 has them.
    options = ("He thinks that he feels worried", "He thinks that he feels bored")
    item = _item("?", (*options, "He thinks that he feels sleepy", "He thinks that he feels cold"))
    offline = align_options(item, _build(item))
    stub.script(PARSE)
    with using_parser(_parser(stub)):
        graph = _build(item)
    plain, through = align_options(item, graph), align_options(item, graph, readings=True)
    assert offline[0].anchor_probability == offline[1].anchor_probability  # no signal
    assert plain == offline  # the readings are off by default: the words decide
    assert through[0].anchor_probability > through[1].anchor_probability


def test_turn_timed_trust_edges_follow_the_events(stub: StubServer) -> None:
    stub.script(PARSE)
    turns = [
        (t.split(": ", 1)[0], t.split(": ", 1)[1].strip('"')) for t in CONVERSATION.split("\n")
    ]
    edge = TrustEdge(truster="Cy Do", trustee="Al Bo", start=4, end=5, weight=0.2)
    with using_parser(_parser(stub)):
        graph = run_dialogue_graph(turns, trust=EdgeTrust(edges=(edge,)))
    (timed,) = graph.trust.edges
    first = {}
    for e in graph.events:
        first.setdefault(e.sentence_index, e.id)
    assert (timed.start, timed.end) == (first[3], first[4])  # turn 4's and turn 5's first events
    offline = dialogue_story(turns)
    assert on_events(EdgeTrust(edges=(edge,)), offline).edges == (edge,)


def test_a_turn_without_events_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from beliefgraph import dialogue

    one = dialogue_story([("Ann", "Hi.")])  # a parse that reads the first turn only
    monkeypatch.setattr(dialogue, "parse_dialogue", lambda *a, **k: one)
    with pytest.raises(DataFormatError, match=r"none for turns \[2\]"):
        dialogue.dialogue_story([("Ann", "Hi."), ("Bob", "Hey.")])


def test_a_model_that_uses_first_names_still_names_the_speakers(stub: StubServer) -> None:
    # The conversation's lines name "Al Bo"; a model calls him "Al", as the lines themselves
    # do. Before, every such utterance failed the speaker check and was dropped.
    short = {
        "actors": ["Al", "Cy"],
        "items": [
            {"type": "utterance", "sentence": 3, "speaker": "Al",
             "content": {"subject": "Al", "relation": "lose", "value": "his job"}},
            {"type": "utterance", "sentence": 4, "speaker": "Cy", "force": "request",
             "content": {"subject": "Al", "relation": "pay", "value": "for the trip"}},
        ],
        "beliefs": [{"holders": ["Cy"], "proposition": "Al is short of money",
                     "claim": {"content_type": "Trait/Value", "subject": "Al", "relation": "be",
                               "value": "short of money"}, "evidence": [3], "how": "inferred"}],
    }  # fmt: skip
    stub.script(short)
    with using_parser(_parser(stub)):
        graph = _build(_item("?", ("a", "b", "c", "d")))
    assert graph.actors == ("Al Bo", "Cy Do")  # no third and fourth person
    said = [(e.sentence_index, e.agent, e.parser) for e in graph.events if e.parser == "llm"]
    assert said == [(2, "Al Bo", "llm"), (3, "Cy Do", "llm")]
    assert [b.holders for b in graph.story.implied] == [("Cy Do",)]
