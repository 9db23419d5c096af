"""The OmniToM direct baseline: the release's prompts through a client, scored like the graph path.

A recording client stands in for the LLM client (same ``extract(str, messages, prompt=...)``
call and ``usage`` counts); its replies are the dev gold tables written the way a model
writes them, so the figures are known.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import benchmarks_dir
from llm_fixtures import ParserWithClient, RecordingClient

from beliefgraph.adapters import evaluate
from beliefgraph.adapters.omnitom import load_stories, make_direct_omnitom, score_stage2
from beliefgraph.adapters.omnitom.direct import ReleaseJudge, stage1_rows
from beliefgraph.adapters.omnitom.labels import DIMENSIONS
from beliefgraph.adapters.omnitom.release import (
    extract_messages,
    label_messages,
    parse_label_rows,
)
from beliefgraph.api import using_parser
from beliefgraph.errors import ConfigurationError

DEV = benchmarks_dir() / "omnitom" / "gold_dev.jsonl"


@pytest.fixture
def stories() -> dict[int, Any]:
    if not DEV.is_file():
        pytest.skip(f"OmniToM dev data not found at {DEV} (set BELIEFGRAPH_BENCHMARKS)")
    return {s.story_id: s for s in load_stories(DEV)}


def _story_of(messages: list[dict[str, str]], stories: dict[int, Any]) -> Any:
    return next(
        s for s in stories.values() if f"Story Narrative:\n{s.story}\n" in messages[1]["content"]
    )


def _label_reply(story: Any, spoil: bool) -> str:
    lines = [
        "| Actor | Belief | Order | Truth-Status | Knowledge-Access | Representation | "
        "Content Type | Mental-Source | Context |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for i, b in enumerate(story.beliefs):
        labels = b.labels.model_dump()
        if spoil and i % 3 == 0:
            labels["truth_status"] = f"Truth Status: {labels['truth_status']}"  # not read
        if spoil and i % 4 == 1:
            labels["order"] = f"Order {labels['order']} (nested)"  # read
        lines.append(
            f"| {b.actor} | {b.belief}. | " + " | ".join(labels[d] for d in DIMENSIONS) + " |"
        )
    return "\n".join(lines)


@pytest.mark.parametrize("spoil", [False, True])
def test_stage2_direct_sends_the_release_prompt_and_scores_with_the_paper_metric(
    stories: dict[int, Any], spoil: bool
) -> None:
    client = RecordingClient(lambda m: _label_reply(_story_of(m, stories), spoil))
    with using_parser(ParserWithClient(client)):
        result = evaluate("omnitom", DEV, stage=2, direct=True)
    assert len(client.sent) == len(stories)  # one request per story
    for (model, messages, prompt), story in zip(client.sent, stories.values(), strict=True):
        assert model is str and prompt == "omnitom.release.label.v1"
        system, user = label_messages(story.story, [(b.actor, b.belief) for b in story.beliefs])
        assert messages == [
            {"role": "system", "content": system},
            {"role": "user", "content": user},
        ]
    # The harness figure is the release's metric on the parsed replies.
    want = [
        score_stage2(parse_label_rows(_label_reply(s, spoil)), list(s.beliefs))
        for s in stories.values()
    ]
    overall = sum(w.overall for w in want) / len(want)
    assert result.metrics["stage2.overall"] == pytest.approx(overall, abs=1e-12)
    for d in DIMENSIONS:
        assert result.metrics[f"stage2.{d}"] == pytest.approx(
            sum(w.per_dimension[d] for w in want) / len(want), abs=1e-12
        )
    if spoil:
        assert result.metrics["stage2.truth_status"] < 1.0 and result.metrics["stage2.order"] == 1.0
    else:
        assert result.metrics["stage2.overall"] == 1.0 and result.accuracy == 1.0
    assert result.metrics["coverage.rows_aligned"] == 1.0
    assert sum(r.llm_calls for r in result.results) == len(stories)  # counted once per story


def test_stage2_direct_reply_missing_rows_leaves_them_unanswered(stories: dict[int, Any]) -> None:
    def reply(m: list[dict[str, str]]) -> str:
        s = _story_of(m, stories)
        return "\n".join(_label_reply(s, False).splitlines()[:4])  # header, separator, 2 rows

    client = RecordingClient(reply)
    bench = make_direct_omnitom(2, client=client)
    (story,) = [s for s in stories.values() if len(s.beliefs) > 2][:1]
    items = [i for i in bench.load(DEV) if i.meta["story_id"] == story.story_id]
    graph = bench.build(items[0])
    results = [bench.answer(i, graph) for i in items]
    assert [r.prediction is not None for r in results] == [True, True] + [False] * (len(items) - 2)
    assert "none has this row's actor and belief" in results[2].explanation[0]
    assert bench.metrics["stage2.overall"](results) == pytest.approx(2 / len(items))


def _extract_reply(story: Any) -> str:
    rows = [f"{b.actor} | {b.belief} | {b.order}" for b in story.beliefs]
    return "Actor | Belief | Order\n" + "\n".join(rows[: len(rows) // 2]) + "\n| nobody | x | 1"


def test_stage1_direct_with_the_token_matcher(stories: dict[int, Any]) -> None:
    client = RecordingClient(lambda m: _extract_reply(_story_of(m, stories)))
    with using_parser(ParserWithClient(client)):
        result = evaluate("omnitom", DEV, stage=1, direct=True)
    model, messages, prompt = client.sent[0]
    first = next(iter(stories.values()))
    assert (model, prompt) == (str, "omnitom.release.extract.v1")
    system, user = extract_messages(first.story)
    assert [m["content"] for m in messages] == [system, user]
    # Half the gold rows verbatim plus one row of an actor the story lacks.
    for s in stories.values():
        half = len(s.beliefs) // 2
        assert len(stage1_rows(_extract_reply(s))[0]) == half + 1
    assert 0.0 < result.metrics["stage1.precision"] < 1.0
    recall = [(len(s.beliefs) // 2) / len(s.beliefs) for s in stories.values()]
    assert result.metrics["stage1.recall"] == pytest.approx(sum(recall) / len(recall))


def test_release_judge_reads_the_release_csv_reply(stories: dict[int, Any]) -> None:
    story = next(iter(stories.values()))
    gold = list(story.beliefs)[:3]
    pred, _ = stage1_rows("\n".join(f"{g.actor} | {g.belief} | 0" for g in gold[:2]))

    def reply(messages: list[dict[str, str]]) -> str:
        rows = "\n".join(f'{g.actor},"{g.belief}",1' for g in gold[:2])
        header = "Actor,Belief,MatchCount"
        return (
            f"Prediction Table\n{header}\n{rows}\n\n"
            f"Ground Truth Table\n{header}\n{rows}\n{gold[2].actor},x,1\n"
        )

    client = RecordingClient(reply)
    got = ReleaseJudge(client=client).align(pred, gold, story=story.story)
    assert (got.mc_pred, got.mc_gold) == ((1, 1), (1, 1, 0))  # the rewritten row counts 0
    assert client.sent[0][2] == "omnitom.release.judge.v1.k3"
    assert "Example 3:" in client.sent[0][1][0]["content"]  # the three worked examples
    ReleaseJudge(fewshots=0, client=client).align(pred, gold)
    assert "Example" not in client.sent[1][1][0]["content"]
    with pytest.raises(ConfigurationError, match="fewshots must be 0 to 3"):
        ReleaseJudge(fewshots=4)


@pytest.mark.usefixtures("offline")
def test_cli_direct_without_an_endpoint_says_what_to_set(
    stories: dict[int, Any], tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from beliefgraph.cli.main import app

    traces = tmp_path / "traces.jsonl"
    args = ["eval", "omnitom", "--data", str(DEV), "--stage", "2", "--direct", "--limit", "3"]
    result = CliRunner().invoke(app, [*args, "--out", str(traces)])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in traces.read_text().splitlines()]
    assert len(rows) == 3 and all(r["prediction"] is None for r in rows)
    assert all("direct baseline asks a model" in " ".join(r["explanation"]) for r in rows)
    bad = CliRunner().invoke(app, ["eval", "omnitom", "--data", str(DEV), "--judge-fewshots", "4"])
    assert bad.exit_code == 2  # refused by the option's range


# -- recorded answers of a frontier model (tests/fixtures/llm_recorded) ----------------------------
RECORDED = Path(__file__).parent / "fixtures" / "llm_recorded" / "omnitom_direct.answers.jsonl"
RECORDED_FIGURES = (
    Path(__file__).parent / "fixtures" / "llm_recorded" / "omnitom_direct.expected.json"
)


@pytest.mark.usefixtures("offline")
def test_recorded_direct_answers_replay_to_the_documented_figures(
    stories: dict[int, Any], tmp_path: Path
) -> None:
    """Export the 58 direct requests into a fresh cache, import the recorded answers with
    ``beliefgraph llm import``, rerun: no call is made and the figures are docs/llm.md's."""
    if not RECORDED.is_file():
        pytest.skip(f"no recorded answers at {RECORDED}")
    from typer.testing import CliRunner

    from beliefgraph.cli.main import app

    cache = tmp_path / "cache.sqlite3"
    settings = {"model": "frontier", "batch_out": str(tmp_path / "b.jsonl"), "cache": str(cache)}
    for stage in (1, 2):
        evaluate("omnitom", DEV, stage=stage, direct=True, parser="llm", parser_settings=settings)
    assert len((tmp_path / "b.jsonl").read_text().splitlines()) == 2 * len(stories)
    imported = CliRunner().invoke(app, ["llm", "import", str(RECORDED), "--cache", str(cache)])
    assert imported.exit_code == 0, imported.output
    want = json.loads(RECORDED_FIGURES.read_text())
    for stage in (1, 2):
        r = evaluate(
            "omnitom", DEV, stage=stage, direct=True, parser="llm", parser_settings=settings
        )
        assert r.llm_calls == 0
        assert not any("pending" in " ".join(x.explanation) for x in r.results)
        for name, value in want[f"stage{stage}"].items():
            assert r.metrics[name] == pytest.approx(value, abs=5e-5), name
