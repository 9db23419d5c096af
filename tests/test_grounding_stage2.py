"""OmniToM Stage 2 from the evidence: the narrated mental state's source and the detailed
grounding call (``omnitom.ground.v1``: ``RowReading``'s closer readings and their rules)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from beliefgraph.adapters.omnitom.grounding import (
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    OmniGrounder,
    ReadingReply,
    reading_messages,
)
from beliefgraph.grounding import (
    PROMPT_VERSION as SHARED_VERSION,
)
from beliefgraph.grounding import (
    GroundingReply,
    RowEvidence,
    StoryGrounding,
    grounding_context,
    grounding_messages,
    label_from_evidence,
)
from beliefgraph.grounding.llm import SYSTEM_PROMPT as SHARED_PROMPT
from beliefgraph.grounding.models import RowReading

# "Wu tells Li, 'The shop closes at noon.'"  "Li decides to go early."  "Zhang walks by."
STORY = ['Wu tells Li, "The shop closes at noon."', "Li decides to go early.", "Zhang walks by."]
ACTORS = ["Li", "Wu", "Zhang"]
SCENES = [
    {"n": 1, "present": ["Li", "Wu"], "involved": ["Li", "Wu"], "speaker": "Wu"},
    {"n": 2, "present": ["Li"], "involved": ["Li"], "private_to": "Li"},
    {"n": 3, "present": ["Zhang"], "involved": ["Zhang"]},
]


def _grounding(rows: list[dict[str, Any]], chains: list[tuple[str, ...]]) -> StoryGrounding:
    ctx = {"sentences": len(STORY), "chains": chains, "actors": ACTORS}
    return ReadingReply.model_validate({"scenes": SCENES, "rows": rows}, context=ctx).to_grounding()


def test_a_narrated_mental_state_is_inferred_not_of_unknown_source() -> None:
    # "Li decides to go early": the narrator gives Li's decision without saying how it arose;
    # it is drawn from the narrated situation, so the source is recoverable: Inference (the
    # schema keeps Unknown for a source the story does not give).
    row = {"row": 0, "sentences": [2], "how": ["narrated"], "support": "stated",
           "stated_to_holder": True, "kind": "Desire/Intention"}  # fmt: skip
    reply = {"scenes": SCENES, "rows": [row]}
    ctx = {"sentences": 3, "chains": [("Li",)], "actors": ACTORS}
    g = StoryGrounding.model_validate(reply, context=ctx)
    labels, sources = label_from_evidence(("Li",), g.rows[0], g, ACTORS)
    assert (labels["mental_source"], sources["mental_source"]) == ("Inference", "evidence")
    assert (labels["representation"], labels["knowledge_access"]) == ("Explicit", "Private")


def test_the_detailed_prompt_extends_the_shared_one_and_keeps_it_fixed() -> None:
    rows = [(("Li",), "The shop closes at noon")]
    ours, shared = reading_messages(STORY, ACTORS, rows), grounding_messages(STORY, ACTORS, rows)
    assert ours[1] == shared[1]  # the same user message: story, actors, rows; nothing else
    tail = 'Reply with one JSON object: {"scenes": [...], "rows": [...]}.'
    assert SYSTEM_PROMPT.startswith(SHARED_PROMPT.removesuffix(tail).rstrip("\n"))
    for field in ("worded", "settled", "mutual", "reports_speech"):
        assert f"- {field}:" in SYSTEM_PROMPT
    assert PROMPT_VERSION == "omnitom.ground.v1" != SHARED_VERSION
    # The shared reply schema has none of the new fields (its cache keys are unchanged).
    assert set(GroundingReply.model_json_schema()["$defs"]["RowEvidence"]["properties"]) == set(
        RowEvidence.model_fields
    )
    assert "worded" not in RowEvidence.model_fields


def test_the_reply_is_checked_against_the_story() -> None:
    ctx = grounding_context(STORY, ACTORS, [(("Li",), "p")])
    bad = {"scenes": SCENES, "rows": [{"row": 0, "sentences": [1], "how": ["heard"],
                                       "mutual": ["Li", "the shopkeeper"]}]}  # fmt: skip
    with pytest.raises(ValidationError, match="'mutual' names \\['the shopkeeper'\\]"):
        ReadingReply.model_validate(bad, context=ctx)
    # names are spelled as the actor list spells them
    ok = {"scenes": SCENES, "rows": [{"row": 0, "sentences": [1], "how": ["heard"],
                                      "mutual": ["li", " WU "]}]}  # fmt: skip
    assert ReadingReply.model_validate(ok, context=ctx).rows[0].mutual == ["Li", "Wu"]


def _row(i: int, **fields: Any) -> dict[str, Any]:
    base = {"row": i, "sentences": [1], "how": ["heard"], "support": "stated",
            "stated_to_holder": True, "worded": "said", "settled": "fact",
            "mutual": ["Li", "Wu"]}  # fmt: skip
    return {**base, **fields}


def _labels(rows: list[dict[str, Any]]) -> list[dict[str, str]]:
    chains = [("Zhang",) if r["mutual"] == ["Zhang"] else ("Li",) for r in rows]
    g = _grounding(rows, chains)
    return [label_from_evidence(c, g.rows[i], g, ACTORS)[0] for i, c in enumerate(chains)]


def test_settled_refines_the_shared_support() -> None:
    got = _labels(
        [
            _row(0, settled="claim"),  # what Wu told Li, nothing contradicts it
            _row(1, support="not_stated", settled="fact"),  # a fact the support read missed
            _row(2, support="not_stated", settled="open"),  # nothing bears on it
            _row(3, support="contradicted", settled="contradicted"),
            _row(4, support="stated", settled="contradicted"),  # a past state, narrated
            # a judgement keeps the shared reading, whichever way it goes
            _row(5, support="stated", settled="judgement"),
            _row(6, support="not_stated", settled="judgement"),
        ]
    )
    assert [r["truth_status"] for r in got] == [
        "True", "True", "Unknown", "False", "True", "True", "Unknown"]  # fmt: skip
    # a seen event is still seen when settled says the story shows it
    seen = _labels([_row(0, how=["saw"], support="not_stated", settled="fact", worded="none")])
    assert seen[0]["mental_source"] == "Perception"


def test_mutual_knowers_and_implied_readings_decide_access() -> None:
    got = _labels(
        [
            _row(0),  # two of three actors know it together: Shared
            _row(1, mutual=ACTORS),  # every actor: Public
            # what Li reads into Wu's words is Li's own, however many heard them
            _row(2, worded="implied", mutual=ACTORS),
            _row(3, how=["saw"], worded="none", mutual=["Zhang"], sentences=[3]),  # alone
        ]
    )
    assert [r["knowledge_access"] for r in got] == ["Shared", "Public", "Private", "Private"]


def test_speech_reports_are_perceived_and_voiced_states_remembered() -> None:
    got = _labels(
        [
            _row(0),  # the content of what Wu said: Testimony
            _row(1, reports_speech=True),  # that Wu said it: the utterance was heard
            # Li's own state, voiced by Li (read as narrated): "what they say from their own
            # knowledge" is the grounding prompt's "remembers"
            _row(2, how=["narrated"], worded="said"),
            _row(3, how=["narrated"], worded="thought"),  # a narrated decision: Inference
        ]
    )
    assert [r["mental_source"] for r in got] == ["Testimony", "Perception", "Memory", "Inference"]


def test_omni_grounder_sends_the_detailed_prompt_through_the_client() -> None:
    seen: dict[str, Any] = {}

    class Client:
        def extract(self, response_model, messages, *, context=None, prompt=None):
            seen.update(model=response_model, prompt=prompt, system=messages[0]["content"])
            rows = [{"row": i, "how": ["inferred"] * len(c), "worded": "none"}
                    for i, c in enumerate(context["chains"])]  # fmt: skip
            return response_model.model_validate({"scenes": SCENES, "rows": rows}, context=context)

    g = OmniGrounder(Client()).ground(STORY, ACTORS, [(("Li",), "Wu is in a hurry")])
    assert (seen["model"], seen["prompt"], seen["system"]) == (
        ReadingReply, PROMPT_VERSION, SYSTEM_PROMPT)  # fmt: skip
    assert isinstance(g.rows[0], RowReading) and g.source == "llm"
    labels, sources = label_from_evidence(("Li",), g.rows[0], g, ACTORS)
    assert (labels["mental_source"], sources["mental_source"]) == ("Inference", "closed-world")


def test_a_narrated_perception_is_an_event_of_the_world() -> None:
    # "Zhang walks by" read as Epistemic (awareness) at order 0: a world fact has no believer,
    # so what the narrator tells is a happening; an actor's belief keeps its reading.
    rows = [(("Li",), "Zhang notices Wu"), ((), "Zhang notices Wu")]
    reply = {"scenes": SCENES, "rows": [
        {"row": 0, "sentences": [3], "how": ["inferred"], "kind": "Epistemic"},
        {"row": 1, "sentences": [3], "kind": "Epistemic", "support": "stated"}]}  # fmt: skip
    ctx = {"sentences": 3, "chains": [c for c, _ in rows], "actors": ACTORS}
    g = StoryGrounding.model_validate(reply, context=ctx)
    belief, _ = label_from_evidence(("Li",), g.rows[0], g, ACTORS)
    world, sources = label_from_evidence((), g.rows[1], g, ACTORS)
    assert (belief["content_type"], world["content_type"]) == ("Epistemic", "Action/Event")
    assert sources["content_type"] == "reading"
