"""The SimpleToM adapter: the released format, one belief behind three answers, the controls.

Fixtures (``tests/fixtures/simpletom``) are the paper's printed examples in the released
format, with their recorded, hand-checked parses (``parses.jsonl``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from beliefgraph import BeliefGraphError, ConfigurationError, DataFormatError
from beliefgraph.adapters import evaluate, get_benchmark, load
from beliefgraph.adapters.harness import answer_items
from beliefgraph.adapters.item import ItemResult
from beliefgraph.adapters.simpletom import (
    InconsistentAnswersError,
    ScenarioParse,
    aware_controls,
    load_simpletom_hf,
    simpletom_report,
    write_simpletom,
)
from beliefgraph.cli.main import app
from beliefgraph.models import Proposition
from beliefgraph.reasoning import (
    ActionOption,
    EventSpec,
    judge_action,
    predict_action,
    read_awareness,
)

pytest_plugins = ["llm_fixtures"]

FIXTURES = Path(__file__).parent / "fixtures" / "simpletom"


@pytest.fixture(scope="module")
def items() -> list:
    return load("simpletom", FIXTURES)


@pytest.fixture(scope="module")
def results(items: list) -> list[ItemResult]:
    return answer_items(get_benchmark("simpletom"), items)


def _by_id(results: list[ItemResult]) -> dict[str, ItemResult]:
    return {r.id: r for r in results}


# -- loading --------------------------------------------------------------------------------------
def test_loader_reads_the_released_format(items: list) -> None:
    assert len(items) == 30
    first = next(i for i in items if i.id == "potato_chip_food_sev1_aware")
    assert first.choices == ("No", "Yes") and first.answer == "A"
    assert first.meta["question_type"] == "mental_state"
    assert first.meta["scenario"] == "food item in grocery store"
    assert first.meta["story_id"] == "potato_chip_food_sev1" and first.meta["severity"] == 1
    assert first.meta["story_data"]["entities"]["Person X"] == "Mary"
    assert ScenarioParse.model_validate(first.meta["parse"]).person_x == "Mary"
    for line in (FIXTURES / "behavior-qa.jsonl").read_text().splitlines():
        record = json.loads(line)
        assert set(record) == {"id", "story", "question", "scenario_name", "choices", "answerKey"}
        assert re.fullmatch(r".+_sev[123]_action", record["id"])


def test_a_single_file_finds_its_parses(tmp_path: Path) -> None:
    items = load("simpletom", FIXTURES / "judgment-qa.jsonl")
    assert len(items) == 10 and all("parse" in i.meta for i in items)


def test_malformed_records_name_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "behavior-qa.jsonl"
    good = (FIXTURES / "behavior-qa.jsonl").read_text().splitlines()
    bad.write_text(good[0] + "\n" + good[1].replace('"answerKey"', '"answer"') + "\n")
    with pytest.raises(DataFormatError, match=r"behavior-qa\.jsonl:2: missing \['answerKey'\]"):
        load("simpletom", bad)
    bad.write_text(good[0].replace("_sev1_action", "_severe_action") + "\n")
    with pytest.raises(DataFormatError, match=r"is not .\{core_id\}_sev"):
        load("simpletom", bad)


def test_hugging_face_path_needs_datasets(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real = builtins.__import__

    def no_datasets(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "datasets":
            raise ImportError("no datasets")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_datasets)
    with pytest.raises(ConfigurationError, match="needs the 'datasets' package"):
        load_simpletom_hf("mental-state-qa")


# -- the fixtures from recorded parses ------------------------------------------------------------
def test_fixtures_all_right_per_question_type(results: list[ItemResult]) -> None:
    report = simpletom_report(results)
    assert report.by_question_type == {"behavior": 1.0, "judgment": 1.0, "mental_state": 1.0}
    assert report.all_three == 1.0 and report.first_failure == {"all_correct": 10}
    assert report.contradictions == () and report.sibling_disagreements == ()
    assert set(report.by_scenario) == {
        "food item in grocery store",
        "hidden body part feature",
        "inside reuse labeled containers",
        "inside containers for personal belongings",
        "provider info healthcare",
        "true property pretentious labels",
    }


def test_answers_cite_the_one_belief(results: list[ItemResult]) -> None:
    r = _by_id(results)
    why = r["kfc_bag_yogurt_sev1_action"].explanation
    assert "KFC paper bag contains KFC food (a default assumption" in why[0]
    assert r["kfc_bag_yogurt_sev1_action"].prediction == "A"  # offer a fork
    assert "has no belief" in r["spider_bite_volleyball_sev2_judge"].explanation[0]


def test_severity_siblings_agree(results: list[ItemResult]) -> None:
    chips = [r for r in results if r.id.startswith("potato_chip_food_")]
    assert len(chips) == 9
    for qt in ("aware", "action", "judge"):
        assert {r.breakdown["implies"] for r in chips if r.id.endswith(qt)} == {"unaware"}
    # sev2 lists the options in the other order: the same reading, another letter
    r = _by_id(results)
    assert r["potato_chip_food_sev1_action"].prediction == "A"
    assert r["potato_chip_food_sev2_action"].prediction == "B"


def test_eval_metrics_from_the_harness() -> None:
    result = evaluate("simpletom", FIXTURES)
    assert result.accuracy == 1.0 and result.answered == 30
    assert result.metrics["all_three_correct"] == 1.0
    assert result.metrics["contradictions"] == 0.0
    assert result.metrics["first_failure_behavior"] == 0.0
    assert result.by()["question_type"]["judgment"] == {"n": 10, "accuracy": 1.0}


# -- controls -------------------------------------------------------------------------------------
def test_aware_controls_flip_all_three_answers(items: list, results: list[ItemResult]) -> None:
    controls = aware_controls(items)
    assert len(controls) == 30
    story = next(c for c in controls if c.id == "potato_chip_food-aware_sev1_aware").story
    assert story.endswith("Mary opens the bag and looks inside.")
    answered = answer_items(get_benchmark("simpletom"), controls)
    assert all(r.correct for r in answered), [r.id for r in answered if not r.correct]
    before = {r.id.replace("_sev", "-aware_sev", 1): r.prediction for r in results}
    for r in answered:
        assert r.prediction != before[r.id], f"{r.id} did not flip"
        assert r.breakdown["implies"] == "aware"
    report = simpletom_report(answered)
    assert report.all_three == 1.0 and report.contradictions == ()


def test_a_constant_answerer_fails_the_controls(items: list) -> None:
    controls = aware_controls(items)
    unaware_side = sum(c.answer == "A" and c.meta["question_type"] != "behavior" for c in controls)
    assert unaware_side == 0  # every mental-state and judgment gold flipped to B


def test_controls_round_trip_through_the_cli(items: list, tmp_path: Path) -> None:
    write_simpletom(aware_controls(items), tmp_path / "aware")
    out = CliRunner().invoke(app, ["eval", "simpletom", "--data", str(tmp_path / "aware")])
    assert out.exit_code == 0, out.output
    assert "simpletom: 100.00% of 30" in out.output


# -- consistency ----------------------------------------------------------------------------------
def test_contradicting_answers_are_reported_and_raise() -> None:
    def res(qt: str, implies: str) -> ItemResult:
        return ItemResult(
            id=f"x_sev1_{qt}",
            gold="A",
            prediction="A",
            correct=True,
            breakdown={"question_type": qt, "scenario": "s", "implies": implies},
        )

    bad = [res("aware", "unaware"), res("action", "aware"), res("judge", "unaware")]
    assert simpletom_report(bad, strict=False).contradictions == ("x_sev1: ['aware', 'unaware']",)
    with pytest.raises(InconsistentAnswersError, match="x_sev1"):
        simpletom_report(bad)


def test_culpable_ignorance_is_not_reasonable() -> None:
    """A synthetic story (not a fixture): the date is printed where Tom looks."""
    key = Proposition(
        content_type="Contents/Physical State", subject="milk", relation="be", value="expired"
    )
    sees = Proposition(
        content_type="Contents/Physical State", subject="Tom", relation="see", value="milk"
    )
    parse = ScenarioParse(
        id="milk_sev1",
        actors=("Tom",),
        person_x="Tom",
        key=key,
        events=(
            EventSpec(sentence=0, kind="narrate", proposition=key, perceivers=()),
            EventSpec(sentence=1, kind="narrate", proposition=sees, perceivers=()),
        ),
    )
    graph = parse.graph("The milk is past its printed date. Tom reads the label and buys it.")
    reading = read_awareness(graph, "Tom", key)
    assert not reading.aware and reading.culpable
    buy, bin_it = ActionOption(text="buy", needs="unaware"), ActionOption(text="bin", needs="aware")
    assert predict_action(reading, [bin_it, buy]) == 1
    assert judge_action(reading, buy) is False


def test_a_misspelt_person_is_an_error_not_ignorance(items: list) -> None:
    item = next(i for i in items if i.id == "sports_recovery_cream_sev2_aware")
    parse = ScenarioParse.model_validate(item.meta["parse"])
    graph = parse.graph(item.story)
    with pytest.raises(BeliefGraphError, match="unknown actor"):
        read_awareness(graph, "the athlete", parse.key)


# -- without a parse ------------------------------------------------------------------------------
def test_without_parse_or_llm_items_are_unanswered(tmp_path: Path, offline: None) -> None:
    shutil.copy(FIXTURES / "mental-state-qa.jsonl", tmp_path)
    result = evaluate("simpletom", tmp_path / "mental-state-qa.jsonl")
    assert result.answered == 0 and result.accuracy == 0.0
    why = result.results[0].explanation[0]
    assert "no recorded parse for story" in why and "not configured" in why


# -- the LLM path (plumbing) ----------------------------------------------------------------------
_CHIPS_PARSE = {
    "actors": ["Mary"],
    "entities": [{"name": "bag of potato chips", "kind": "container"}],
    "items": [
        {
            "type": "fact",
            "sentence": 1,
            "kind": "narrate",
            "claim": {
                "content_type": "Contents/Physical State",
                "subject": "bag of potato chips",
                "relation": "contains",
                "value": "@KEY",
            },
        },
        {
            "type": "default",
            "sentence": 2,
            "holders": ["Mary"],
            "container": "bag of potato chips",
            "contents": "potato chips",
        },
    ],
}


def _stub_reply(body: dict[str, Any]) -> Any:
    from llm_fixtures import Reply

    tool = body["tools"][0]["function"]["name"]
    text = " ".join(m["content"] for m in body["messages"] if m["role"] == "user")
    if tool == "StoryParse":
        bad = next(b for b in ("moldy chips", "dead cockroach", "fried rats") if b in text)
        return Reply(json.loads(json.dumps(_CHIPS_PARSE).replace("@KEY", bad)))
    assert tool == "GroundingReply", tool
    # The grounding call (beliefgraph.ground.v1): k's row rests on sentence 1 (the bad
    # contents); an option that reports them rests on it too, paying on sentence 2 only.
    sentences = re.findall(r"^\[(\d+)\] ", text.split("Rows:")[0], re.M)
    rows = re.findall(r"^\[(\d+)\] (.*)$", text.split("Rows:")[1], re.M)
    return Reply(
        {
            "scenes": [{"n": int(n), "present": ["Mary"]} for n in sentences],
            "rows": [
                {
                    "row": int(i),
                    "sentences": [1] if i == "0" or "reason to report" in row else [2],
                    "how": ["inferred"] if row.startswith("Mary :") else [],
                    "support": "stated",
                }
                for i, row in rows
            ],
        }
    )


def test_llm_path_reads_a_story_without_recorded_parse(
    stub: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offline: None
) -> None:
    monkeypatch.setenv("BELIEFGRAPH_LLM_BASE_URL", stub.base_url)
    monkeypatch.setenv("BELIEFGRAPH_LLM_MODEL", "stub")
    stub.responder = _stub_reply
    chips = [i for i in load("simpletom", FIXTURES) if i.id.startswith("potato_chip_food_")]
    for i in chips:  # drop the recorded parse: the LLM must read the story
        i.meta.pop("parse")
    answered = answer_items(get_benchmark("simpletom"), chips)
    assert all(r.correct for r in answered), [(r.id, r.explanation) for r in answered]
    tools = {json.dumps(r["tools"][0]["function"]["name"]) for r in stub.requests}
    # Two independent calls per story: the parse and the grounding of its questions
    # (changed on purpose: the option typing used to be a third call that read the parse).
    assert tools == {'"StoryParse"', '"GroundingReply"'}
    assert len(stub.requests) == 2 * len({i.story for i in chips})


@pytest.mark.skipif(
    not os.environ.get("BELIEFGRAPH_LLM_BASE_URL") or not os.environ.get("BELIEFGRAPH_LLM_MODEL"),
    reason="no LLM server configured (set BELIEFGRAPH_LLM_BASE_URL and BELIEFGRAPH_LLM_MODEL)",
)
def test_llm_path_on_a_real_server(items: list) -> None:  # pragma: no cover - needs a server
    from beliefgraph.adapters.simpletom import LLMScenarioReader

    item = next(i for i in items if i.id == "kfc_bag_yogurt_sev1_action")
    parse = LLMScenarioReader().read(item.model_copy(update={"meta": {**item.meta}}))
    assert parse.graph(item.story).events  # plumbing only: the parse builds a graph
