"""Free-form questions through the grounding, and the direct baselines of SimpleToM and ToMBench.

The engine's choice (``grounding.freeform``) is tested on graphs the rules parser builds and
grounding replies written here; the adapters' LLM paths against the local stub server (the
requests they send, how many, and what the engine makes of a reply). Nothing here asserts on
what a real model answers: the recorded frontier answers are replayed in
``test_freeform_recorded.py``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beliefgraph import track
from beliefgraph.adapters import evaluate, get_benchmark, load
from beliefgraph.adapters.harness import answer_items
from beliefgraph.adapters.simpletom import direct_messages as simple_messages
from beliefgraph.adapters.tombench import SYSTEM_PROMPT_EN, free_questions
from beliefgraph.adapters.tombench import direct_messages as tom_messages
from beliefgraph.grounding import RowEvidence, Scene, StoryGrounding
from beliefgraph.grounding.freeform import (
    FreeQuestion,
    choose_by_access,
    co_present,
    denies,
    evidence_access,
    option_needs,
    option_rows,
)

pytest_plugins = ["llm_fixtures"]

FIXTURES = Path(__file__).parent / "fixtures" / "simpletom"
BANK = (
    "Xiao Ming and Xiao Li are wandering in the bank, they see a handbag and a box, they find "
    "chalk in the handbag, Xiao Li leaves the bank, Xiao Ming moves the chalk to the box."
)
OPTIONS = ("Does not see", "Handbag", "Tote Bags", "Chalk")
# A grounding reply for the options above: the chalk (in the box) is stated in sentence 1,
# the handbag is not what is in the box, tote bags are never mentioned.
EVIDENCE = [
    RowEvidence(row=0),
    RowEvidence(row=1, sentences=[1], support="contradicted"),
    RowEvidence(row=2),
    RowEvidence(row=3, sentences=[1], support="stated"),
]


def _question(holder: str) -> FreeQuestion:
    return FreeQuestion(text=f"What does {holder} see in the box?", options=OPTIONS, holder=holder)


def test_an_option_held_by_who_perceived_it() -> None:
    graph = track(BANK, strict=False)
    # The move is the last clause of the one sentence: Xiao Li, gone, did not see it.
    gone = choose_by_access(graph, _question("Xiao Li"), EVIDENCE)
    assert gone.index == 0, gone.explanation
    assert "did not perceive sentence 1 (the graph)" in " ".join(gone.explanation)
    there = choose_by_access(graph, _question("Xiao Ming"), EVIDENCE)
    assert there.index == 3, there.explanation


def test_no_single_held_option_is_unanswered() -> None:
    graph = track(BANK, strict=False)
    nothing = [RowEvidence(row=i) for i in range(4)]  # the story states none of them
    got = choose_by_access(graph, _question("Xiao Ming"), nothing)
    assert got.index is None
    assert got.explanation[-1].endswith("unanswered.")


def test_option_rows_carry_the_holder_and_the_question() -> None:
    rows = option_rows([_question("Xiao Li"), FreeQuestion(text="Q?", options=("x",))])
    assert rows[3] == (("Xiao Li",), "Chalk (answering: What does Xiao Li see in the box?)")
    assert rows[4] == ((), "x (answering: Q?)")


def test_option_needs_awareness_when_its_reason_lies_only_in_the_key_sentences() -> None:
    # Changed on purpose: an option whose reason also lies outside k's sentences (what the
    # holder perceives: "offer a fork" for a KFC bag) is what one does without k.
    assert option_needs(RowEvidence(row=0, sentences=[1]), {1}) == "aware"
    assert option_needs(RowEvidence(row=0, sentences=[1, 3]), {1, 3}) == "aware"
    assert option_needs(RowEvidence(row=0, sentences=[1, 2]), {1}) == "unaware"
    assert option_needs(RowEvidence(row=0, sentences=[2]), {1}) == "unaware"
    assert option_needs(RowEvidence(row=0), {1}) is None


def test_an_implied_option_is_held_by_who_perceived_its_evidence() -> None:
    graph = track(BANK, strict=False)
    options = ("Curious about the chalk", "Bored", "Asleep", "Hungry")
    evidence = [
        RowEvidence(row=0, sentences=[1], support="not_stated"),  # implied by sentence 1
        RowEvidence(row=1, sentences=[], support="not_stated"),  # nothing in the story
        RowEvidence(row=2, sentences=[1], support="contradicted"),
        RowEvidence(row=3, sentences=[], support="not_stated"),
    ]

    def ask(holder: str) -> FreeQuestion:
        return FreeQuestion(text=f"How does {holder} feel?", options=options, holder=holder)

    stayed = choose_by_access(graph, ask("Xiao Ming"), evidence)
    assert stayed.index == 0 and "the only option the story implies" in stayed.explanation[-1]
    # Xiao Li left before the chalk was moved: she did not perceive all of the evidence.
    assert choose_by_access(graph, ask("Xiao Li"), evidence).index is None
    # Two implied options: the graph does not single one out.
    two = [evidence[0], evidence[0].model_copy(update={"row": 1}), *evidence[2:]]
    assert choose_by_access(graph, ask("Xiao Ming"), two).index is None


def test_closed_world_nothing_reached_the_holder_so_the_denial() -> None:
    graph = track(BANK, strict=False)
    nothing = [RowEvidence(row=i) for i in range(4)]  # no option linked to the story
    got = choose_by_access(graph, _question("Xiao Li"), nothing)
    assert got.index == 0 and "nothing the story states or implies" in got.explanation[-1]
    # A question about the world has no holder to deny access to: unanswered.
    world = FreeQuestion(text="What is in the box?", options=OPTIONS)
    assert choose_by_access(graph, world, nothing).index is None


def test_only_an_option_opening_with_a_negation_denies_access() -> None:
    assert denies("Does not see") and denies("Doesn't know") and denies("Nothing")
    assert not denies("She wants to mock herself: the day is not a wise choice")
    assert not denies("Chalk")


@settings(max_examples=60, deadline=None)
@given(
    supports=st.lists(st.sampled_from(["stated", "contradicted", "not_stated"]), min_size=4,
                      max_size=4),
    cited=st.lists(st.booleans(), min_size=4, max_size=4),
    holder=st.sampled_from(["Xiao Li", "Xiao Ming"]),
)  # fmt: skip
def test_the_choice_is_stated_and_perceived_or_implied_or_the_denial(
    supports: list[str], cited: list[bool], holder: str
) -> None:
    graph = track(BANK, strict=False)
    evidence = [
        RowEvidence(row=i, sentences=[1] if c else [], support=s)  # type: ignore[arg-type]
        for i, (s, c) in enumerate(zip(supports, cited, strict=True))
    ]
    got = choose_by_access(graph, _question(holder), evidence)
    if got.index is None:
        return
    options = _question(holder).options
    if got.index == 0:
        # The denial: when something stated went unseen by the holder, or (closed world,
        # since stop 13) when no other option is stated or implied by evidence they perceived.
        unseen_stated = holder == "Xiao Li" and any(
            s == "stated" and c for s, c in zip(supports[1:], cited[1:], strict=True)
        )
        reached = [i for i in range(1, 4) if cited[i] and supports[i] != "contradicted"
                   and evidence_access(graph, holder, [1], options[i])[0]]  # fmt: skip
        assert unseen_stated or not reached
    elif supports[got.index] == "stated":
        assert cited[got.index]
        # Xiao Li saw the handbag and the chalk found in it, not the chalk's move to the box.
        assert not (holder == "Xiao Li" and got.index == 3)
    else:
        # Since stop 13: with no option stated (with evidence), the one option the story
        # implies (cited, not contradicted, its evidence perceived) is the answer.
        assert supports[got.index] == "not_stated" and cited[got.index]
        assert not any(s == "stated" and c for s, c in zip(supports[1:], cited[1:], strict=True))
        others = [i for i in range(1, 4) if i != got.index and cited[i]]
        implied = [i for i in others if supports[i] != "contradicted"
                   and evidence_access(graph, holder, [1], options[i])[0]]  # fmt: skip
        # Since stop 14 (on purpose): of several implied options, the one that names a thing
        # new to someone the question names, or whose evidence includes all the others'.
        assert not implied or any("new to" in x or "include the evidence" in x
                                  for x in got.explanation)  # fmt: skip
        assert evidence_access(graph, holder, [1], options[got.index])[0]


# -- ToMBench through the grounding, against the stub ----------------------------------------
def _bank_file(tmp_path: Path) -> Path:
    task = tmp_path / "Percepts-Knowledge Links.jsonl"
    record = {
        "STORY": BANK,
        "OPTION-A": "A. Does not see",
        "OPTION-B": "B. Handbag",
        "OPTION-C": "C. Tote Bags",
        "OPTION-D": "D. Chalk",
        "答案\nANSWER": "A",
        "能力\nABILITY": "Knowledge: Percepts-knowledge links",
        "序号\nINDEX": 1,
    }
    q1 = {**record, "QUESTION": "What does Xiao Li see in the box?"}
    q2 = {
        **record,
        "QUESTION": "Where does Xiao Li think the chalk is?",
        "OPTION-A": "A. Box",
        "OPTION-B": "B. Handbag",
        "OPTION-C": "C. Drawer",
        "OPTION-D": "D. Bank",
        "答案\nANSWER": "B",
        "序号\nINDEX": 2,
    }
    task.write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in (q1, q2)) + "\n", encoding="utf-8"
    )
    return task


def _grounding_reply(body: dict[str, Any]) -> Any:
    from llm_fixtures import Reply

    assert body["tools"][0]["function"]["name"] == "GroundingReply"
    text = body["messages"][-1]["content"]
    rows = re.findall(r"^\[(\d+)\] (.*)$", text.split("Rows:")[1], re.M)
    return Reply(
        {
            "scenes": [{"n": 1, "present": ["Xiao Ming"]}],
            "rows": [
                {
                    "row": int(i),
                    "sentences": [1] if "Chalk" in row else [],
                    "how": ["saw"],
                    "support": "stated" if "Chalk" in row else "not_stated",
                }
                for i, row in rows
            ],
        }
    )


def test_tombench_free_questions_are_grounded_once_per_story(
    stub: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offline: None
) -> None:
    stub.responder = _grounding_reply
    path = _bank_file(tmp_path)
    items = load("tombench", path)
    # Only the question the question module cannot read is grounded.
    assert [q.text for q in free_questions(items[0])] == ["What does Xiao Li see in the box?"]
    assert free_questions(items[0])[0].holder == "Xiao Li"
    # "auto": the rules read this story whole (no parse call), the grounding is one call.
    result = evaluate(
        "tombench", path, parser="auto", parser_settings={"base_url": stub.base_url,
                                                          "model": "stub"},
    )  # fmt: skip
    assert len(stub.requests) == 1
    sent = stub.requests[0]["messages"][-1]["content"]
    assert "Actors: Xiao Ming; Xiao Li" in sent
    assert "[3] Xiao Li : Chalk (answering: What does Xiao Li see in the box?)" in sent
    got = {r.id.split(":")[-1]: r for r in result.results}
    assert got["1"].prediction == "A", got["1"].explanation  # grounded, then the graph
    assert "did not perceive" in " ".join(got["1"].explanation)
    assert got["2"].prediction == "B", got["2"].explanation  # the question module


def test_tombench_without_a_grounding_says_why(
    stub: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offline: None
) -> None:
    from llm_fixtures import Reply

    stub.responder = lambda body: Reply("not json", status=500)
    result = evaluate(
        "tombench", _bank_file(tmp_path), parser="auto",
        parser_settings={"base_url": stub.base_url, "model": "stub", "max_retries": 0},
    )  # fmt: skip
    first = result.results[0]
    assert first.prediction is None
    assert "grounding is missing" in first.explanation[-1]


# -- same model, directly ----------------------------------------------------------------------
def test_simpletom_direct_prompt_is_the_papers() -> None:
    item = next(i for i in load("simpletom", FIXTURES) if i.id == "potato_chip_food_sev1_action")
    (message,) = simple_messages(item)
    assert message == {
        "role": "user",
        "content": "Given the following story, answer the question by giving the correct answer "
        "choice, (A) or (B).\n\nStory: The bag of potato chips has moldy chips in it. Mary picks "
        "up the bag in the supermarket and walks to the cashier.\n\nQuestion: What will Mary "
        "likely do next?\n\n(A) pay for the chips\n\n(B) report the moldy chips\n\nWhat is the "
        'correct answer? Respond with just "(A)" or "(B)"',
    }


def test_tombench_direct_prompt_is_the_releases(tmp_path: Path) -> None:
    item = load("tombench", _bank_file(tmp_path))[0]
    system, user = tom_messages(item)
    assert system == {"role": "system", "content": SYSTEM_PROMPT_EN}
    assert SYSTEM_PROMPT_EN.startswith("Below is a multiple-choice question with a story and "
                                       "serveral answer options.")  # fmt: skip
    assert user["content"] == (
        f"[Story]\n{BANK}\n\n[Question]\nWhat does Xiao Li see in the box?\n\n"
        "[Candidate Answers]\nA. Does not see\nB. Handbag\nC. Tote Bags\nD. Chalk"
    )


def test_direct_runs_ask_once_per_question_and_score_the_reply(
    stub: Any, tmp_path: Path, offline: None
) -> None:
    from llm_fixtures import Reply

    stub.responder = lambda body: Reply(
        "[[A]]" if body["messages"][0]["role"] == "system" else "(B)"
    )
    settings = {"base_url": stub.base_url, "model": "stub"}
    tom = evaluate("tombench", _bank_file(tmp_path), parser="llm", parser_settings=settings,
                   direct=True)  # fmt: skip
    assert [r.prediction for r in tom.results] == ["A", "A"]
    assert [r.correct for r in tom.results] == [True, False]
    simple = evaluate("simpletom", FIXTURES, parser="llm", parser_settings=settings, direct=True)
    assert simple.n == 30 and all(r.prediction == "B" for r in simple.results)
    assert [r.correct for r in simple.results] == [r.gold == "B" for r in simple.results]
    assert len(stub.requests) == 2 + 30  # one request per question, no parse, no grounding
    assert not any("tools" in body for body in stub.requests)


def test_direct_reply_naming_no_option_is_unanswered(stub: Any, offline: None) -> None:
    from llm_fixtures import Reply

    stub.responder = lambda body: Reply("I cannot tell.")
    settings = {"base_url": stub.base_url, "model": "stub"}
    items = load("simpletom", FIXTURES / "behavior-qa.jsonl")[:1]
    from beliefgraph.api import using_parser
    from beliefgraph.parsers.llm import LLMParser

    with using_parser(LLMParser(strict=False, **settings)):
        (r,) = answer_items(get_benchmark("simpletom", direct=True), items)
    assert r.prediction is None and "names no option" in r.explanation[-1]


def test_evidence_access_needs_every_event_naming_it_perceived() -> None:
    graph = track(BANK, strict=False)
    # "the chalk is in the box": Xiao Li saw the chalk found, not its move to the box.
    seen, why = evidence_access(graph, "Xiao Li", [1], "the chalk is in the box")
    assert not seen and "perceived none of sentence(s) [1]" in why
    seen, why = evidence_access(graph, "Xiao Ming", [1], "the chalk is in the box")
    assert seen and why.startswith("Xiao Ming perceived sentence 1")


def test_co_present_reads_the_scene_through_the_names() -> None:
    grounding = StoryGrounding(
        scenes=[Scene(n=1, present=["Mary"]), Scene(n=2, present=["Mary's classmate"],
                                                    involved=["Mary"])],
    )  # fmt: skip
    short = {"Mary's classmate": "classmate"}
    assert co_present(grounding, 1, lambda a: short.get(a, a)) == {"Mary"}
    assert co_present(grounding, 2, lambda a: short.get(a, a)) == {"classmate", "Mary"}
    assert co_present(grounding, 3, lambda a: a) is None
