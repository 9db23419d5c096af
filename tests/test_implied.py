"""Implied beliefs: from the parse's ``beliefs`` to typed, propagated, checked graph beliefs.

A hand-written StoryParse reply stands for the model (never a model's output): Ann hints to
Bob that eggs are needed while Cid is out of the room; the parse proposes what Ann intends
and what Bob and Cid infer. The graph must type them by how they were come by, propagate the
hinter's intent to the listener who heard it (never to the one who was absent), let the
``inference_evidence`` axiom reject an inference from evidence its holder never perceived,
and list them in the Stage 1 table in the parse's own words.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from beliefgraph import BeliefGraph
from beliefgraph.adapters.omnitom import extract
from beliefgraph.models import ImpliedBelief, Proposition
from beliefgraph.parsers.llm.convert import split_sentences, to_story
from beliefgraph.parsers.llm.schema import StoryParse
from beliefgraph.solvers.consistency import check

TEXT = (
    "Ann and Bob are in the kitchen. Cid leaves the kitchen. "
    'Ann says to Bob, "There are no eggs at home." Cid comes back to the kitchen.'
)


def _claim(ct: str, subject: str, relation: str, value: str | None = None) -> dict[str, Any]:
    return {"content_type": ct, "subject": subject, "relation": relation, "value": value}


def _belief(holders: list[str], text: str, claim: dict[str, Any], evidence: list[int],
            how: str) -> dict[str, Any]:  # fmt: skip
    return {"holders": holders, "proposition": text, "claim": claim, "evidence": evidence,
            "how": how}  # fmt: skip


NEED = _claim("Desire/Intention", "Bob", "buy", "eggs")
REPLY: dict[str, Any] = {
    "actors": ["Ann", "Bob", "Cid"],
    "entities": [{"name": "kitchen", "kind": "room"}],
    "items": [
        {"type": "action", "sentence": 1, "kind": "enter", "actors": ["Ann", "Bob", "Cid"],
         "room": "kitchen"},
        {"type": "action", "sentence": 2, "kind": "exit", "actors": ["Cid"], "room": "kitchen"},
        {"type": "utterance", "sentence": 3, "speaker": "Ann", "addressees": ["Bob"],
         "content": {**_claim("Contents/Physical State", "eggs", "be", "at home"),
                     "negated": True}},
        {"type": "action", "sentence": 4, "kind": "enter", "actors": ["Cid"], "room": "kitchen"},
    ],
    "beliefs": [
        _belief(["Ann"], "Bob should buy eggs.", NEED, [3], "implied"),
        _belief(["Bob"], "Ann wants Bob to buy eggs", _claim("Desire/Intention", "Ann", "want",
                "Bob to buy eggs"), [3], "inferred"),
        _belief(["Cid"], "Ann needs eggs", _claim("Desire/Intention", "Ann", "need", "eggs"),
                [3], "inferred"),
        _belief(["Bob", "Ann"], "Bob will go shopping", _claim("Action/Event", "Bob", "go",
                "shopping"), [3], "inferred"),
    ],
}  # fmt: skip


def _story(reply: dict[str, Any] = REPLY) -> Any:
    sentences = split_sentences(TEXT)
    context = {"sentences": [s.text for s in sentences], "first": 1, "coverage": True}
    parse = StoryParse.model_validate(reply, context=context).shifted(1)
    return to_story(TEXT, sentences, parse)


@pytest.fixture(scope="module")
def graph() -> BeliefGraph:
    return BeliefGraph(_story(), max_order=3)


def test_the_parse_beliefs_become_the_storys_implied_beliefs() -> None:
    story = _story()
    first = story.implied[0]
    assert first == ImpliedBelief(
        holders=("Ann",),
        proposition=Proposition(content_type="Desire/Intention", subject="Bob", relation="buy",
                                value="eggs"),
        wording="Bob should buy eggs", evidence=(2,), how="implied",
    )  # fmt: skip
    # the reply counted sentences from 1; the story's evidence is Sentence.index (from 0)
    assert [b.evidence for b in story.implied] == [(2,), (2,), (2,), (2,)]


def test_implied_beliefs_are_typed_by_how_they_were_come_by(graph: BeliefGraph) -> None:
    ann = graph.implied.proposed[0]
    assert (ann.mental_source, ann.representation, ann.truth_status) == (
        "Inference", "Implicit", "Unknown")  # fmt: skip
    said = next(e for e in graph.events if e.kind == "tell")
    assert ann.start == said.id and ann.provenance == (said.id,)
    assert ann.wording == "Bob should buy eggs" and not ann.asserted
    assert ann in graph.beliefs(max_order=1)  # listed with the graph's other beliefs


def test_the_listener_who_heard_the_hint_can_hold_the_hinters_intent(graph: BeliefGraph) -> None:
    (spread,) = graph.implied.propagated
    assert spread.holders == ("Bob", "Ann")  # Bob heard Ann; Cid was out of the room
    assert spread.proposition == graph.implied.proposed[0].proposition
    assert (spread.mental_source, spread.representation) == ("Inference", "Implicit")
    assert graph.timeline_of(("Bob", "Ann"), variable=spread.proposition.variable) == [spread]
    assert not graph.timeline_of(("Cid", "Ann"), variable=spread.proposition.variable)


def test_an_inference_from_unperceived_evidence_is_a_named_conflict(graph: BeliefGraph) -> None:
    assert graph.implied.supported == (True, True, False, True)  # Cid was out when Ann spoke
    report = check(graph)
    (conflict,) = report.conflicts
    assert conflict.axioms == ("inference_evidence",)
    assert conflict.beliefs[0].holders == ("Cid",)
    assert "Cid perceived none of its evidence: sentence 3" in conflict.explanation


def test_an_inference_contradicting_what_the_holder_saw_names_both_lines() -> None:
    reply = {**REPLY, "beliefs": [
        _belief(["Bob"], "Cid is in the kitchen", _claim("Location", "Cid", "in", "kitchen"),
                [3], "inferred"),
    ]}  # fmt: skip
    report = check(BeliefGraph(_story(reply), max_order=1))
    assert not report.consistent
    conflict = report.conflicts[0]
    assert conflict.beliefs[0].holders == ("Bob",) and "observation" in conflict.axioms
    # the exit Bob saw, and the remark the belief was inferred from
    assert [s.split(" (")[0] for s in conflict.sentences] == ["sentence 2", "sentence 3"]
    assert 'sentence 2 ("Cid leaves the kitchen.")' in conflict.explanation


def test_stage1_lists_implied_beliefs_in_the_parses_words(graph: BeliefGraph) -> None:
    rows = [(r.row.actor, r.row.belief) for r in extract(graph)]
    assert ("Ann", "Bob should buy eggs") in rows
    assert ("Bob", "Ann thinks Bob will go shopping") in rows  # nested: "thinks", lower case
    assert ("Cid", "Ann needs eggs") not in rows  # its holder never perceived the evidence
    assert ("Bob", "Ann thinks Bob should buy eggs") not in rows  # propagated: nested="all"
    every = [(r.row.actor, r.row.belief) for r in extract(graph, nested="all")]
    assert ("Bob", "Ann thinks Bob should buy eggs") in every
    labels = {r.row.belief: r.row.labels for r in extract(graph)}
    assert labels["Bob should buy eggs"].mental_source == "Inference"
    assert labels["Bob should buy eggs"].representation == "Implicit"


def test_a_row_already_listed_in_other_words_is_not_repeated() -> None:
    reply = {**REPLY, "beliefs": [
        _belief(["Bob"], "Ann says there are no eggs at home", _claim("Action/Event", "Ann",
                "say", "no eggs"), [3], "told"),
    ]}  # fmt: skip
    rows = [r.row for r in extract(BeliefGraph(_story(reply), max_order=3))]
    said = [r.belief for r in rows if r.actor == "world" and "says" in r.belief]
    assert said == ['Ann says to Bob, "There are no eggs at home."']  # the quotation, once
    assert sum("no eggs at home" in r.belief for r in rows if r.actor == "Bob") == 1


def test_implied_beliefs_survive_the_json_round_trip(graph: BeliefGraph) -> None:
    again = BeliefGraph.from_json(graph.to_json())
    assert again.story.implied == graph.story.implied
    assert again.implied == graph.implied


def test_a_belief_naming_an_unknown_holder_or_sentence_is_reasked() -> None:
    bad = {**REPLY, "beliefs": [_belief(["Zed"], "Ann is sad", _claim("Emotion", "Ann", "be",
           "sad"), [9], "inferred")]}  # fmt: skip
    context = {"sentences": [s.text for s in split_sentences(TEXT)], "first": 1}
    with pytest.raises(ValueError) as err:
        StoryParse.model_validate(bad, context=context)
    assert "'Zed' is not in actors" in str(err.value)
    assert "evidence [9] is not a sentence number (1..4)" in str(err.value)


def test_the_reply_schema_lists_beliefs_apart_from_items() -> None:
    schema = json.dumps(StoryParse.model_json_schema())
    assert '"beliefs"' in schema and '"evidence"' in schema and '"implied"' in schema


def test_a_nested_belief_worded_as_knowing_reads_thinks_once() -> None:
    reply = {**REPLY, "beliefs": [
        _belief(["Bob", "Ann"], "Ann knows that Bob heard her", _claim("Epistemic", "Ann",
                "know", "Bob heard her"), [3], "inferred"),
        _belief(["Bob", "Ann"], "Ann thinks Bob will help", _claim("Epistemic", "Ann", "think",
                "Bob will help"), [3], "inferred"),
    ]}  # fmt: skip
    rows = [r.row.belief for r in extract(BeliefGraph(_story(reply), max_order=3))
            if r.row.actor == "Bob"]  # fmt: skip
    assert "Ann thinks Bob heard her" in rows and "Ann thinks Bob will help" in rows
