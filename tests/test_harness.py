"""The evaluation harness and the ToMi adapter: loading as released, scoring, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from beliefgraph import BeliefGraph, DataFormatError, UnknownNameError, track
from beliefgraph.adapters import evaluate, load
from beliefgraph.cli.main import app

# Issue 15 item 6 widened the summary on purpose: the official metric named (headline),
# every metric, the parser and settings that produced it, the load problems, timeouts.
SUMMARY_KEYS = {
    "benchmark",
    "headline",
    "n",
    "answered",
    "accuracy",
    "metrics",
    "by",
    "parse_coverage",
    "seconds",
    "llm_calls",
    "parser",
    "settings",
    "load_problems",
    "problems",
    "timed_out",
}

MINI = """\
1 Ella entered the garage.
2 Avery entered the garage.
3 The spinach is in the green_crate.
4 Ella exited the garage.
5 Avery moved the spinach to the green_treasure_chest.
6 Where will Ella look for the spinach?\tgreen_crate\t1
7 Where is the spinach really?\tgreen_treasure_chest\t1
"""
MINI_TRACE = """\
enter_agent_1,enter_agent_0,agent_1_exits,agent_0_moves_obj,first_order_1_tom,false_belief
enter_agent_1,enter_agent_0,agent_1_exits,agent_0_moves_obj,reality,false_belief
"""


def _tomi(tmp_path: Path, text: str = MINI, trace: str | None = MINI_TRACE) -> Path:
    path = tmp_path / "mini.txt"
    path.write_text(text)
    if trace is not None:
        path.with_suffix(".trace").write_text(trace)
    return path


def test_tomi_loader_reads_babi_numbering_and_trace(tmp_path: Path) -> None:
    items = load("tomi", _tomi(tmp_path))
    assert [i.answer for i in items] == ["green_crate", "green_treasure_chest"]
    assert items[0].story.splitlines()[0] == "1 Ella entered the garage."
    assert items[0].meta["question_type"] == "first_order"
    assert items[1].meta["story_type"] == "false_belief"


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    bad = _tomi(tmp_path, MINI.replace("4 Ella exited", "Ella exited"), trace=None)
    with pytest.raises(DataFormatError, match=r"mini\.txt:4"):
        load("tomi", bad)


def test_question_without_answer_is_malformed(tmp_path: Path) -> None:
    bad = _tomi(tmp_path, MINI.replace("\tgreen_crate\t1", "\t\t1"), trace=None)
    with pytest.raises(DataFormatError, match=r"mini\.txt:6"):
        load("tomi", bad)


def test_trace_that_does_not_match_is_an_error(tmp_path: Path) -> None:
    bad = _tomi(tmp_path, trace=MINI_TRACE.splitlines()[0] + "\n")
    with pytest.raises(DataFormatError, match=r"mini\.trace"):
        load("tomi", bad)


def test_missing_file_and_unknown_benchmark(tmp_path: Path) -> None:
    with pytest.raises(DataFormatError, match="no such file"):
        load("tomi", tmp_path / "absent.txt")
    with pytest.raises(UnknownNameError, match=r"registered: .*tomi"):
        load("no-such-bench", _tomi(tmp_path))


def test_evaluate_summary_has_exactly_the_documented_keys(tmp_path: Path) -> None:
    result = evaluate("tomi", _tomi(tmp_path))
    summary = result.summary()
    assert set(summary) == SUMMARY_KEYS
    assert summary["n"] == 2 and summary["accuracy"] == 1.0 and summary["llm_calls"] == 0
    assert summary["by"]["question_type"]["first_order"] == {"n": 1, "accuracy": 1.0}


def test_unreadable_story_counts_as_wrong_and_is_listed(tmp_path: Path) -> None:
    text = MINI.replace("4 Ella exited the garage.", "4 Anne feels guilty.")
    result = evaluate("tomi", _tomi(tmp_path, text, trace=None))
    assert result.parse_coverage == 0.0
    assert all(r.unparsed == ("Anne feels guilty.",) for r in result.results)
    assert result.n == 2  # never skipped


def test_tomi_val_slice(benchmarks: Path) -> None:
    path = benchmarks / "tomi" / "tomi_balanced_story_types" / "fb_all_val.txt"
    result = evaluate("tomi", path, limit=600)
    by = result.by()
    assert by["label"]["supported"]["accuracy"] == 1.0
    for qtype in ("first_order", "memory", "reality"):
        assert by["question_type"][qtype]["accuracy"] == 1.0
    wrong = [r for r in result.results if not r.correct]
    assert all(r.breakdown["question_type"] == "second_order" for r in wrong)
    assert all(r.disagreement for r in wrong)
    assert result.parse_coverage == 1.0


def test_eval_cli_writes_traces_and_summary(tmp_path: Path) -> None:
    data = _tomi(tmp_path)
    traces, summary = tmp_path / "t.jsonl", tmp_path / "s.json"
    result = CliRunner().invoke(
        app, ["eval", "tomi", "--data", str(data), "--out", str(traces), "--summary", str(summary)]
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in traces.read_text().splitlines()]
    assert {"id", "gold", "prediction", "correct", "explanation", "unparsed"} <= set(lines[0])
    assert set(json.loads(summary.read_text())) == SUMMARY_KEYS


def test_eval_cli_unknown_benchmark_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "nope", "--data", str(_tomi(tmp_path))])
    assert result.exit_code == 1
    assert "unknown benchmark 'nope'" in result.output


def test_parse_cost_adds_to_what_the_answer_spent(tmp_path: Path) -> None:
    from beliefgraph.adapters import Benchmark, Item, ItemResult, benchmarks
    from beliefgraph.models import ParseCost

    def build(item: Item) -> BeliefGraph:
        story = track(item.story).story
        return BeliefGraph(story.model_copy(update={"cost": ParseCost(calls=2, prompt_tokens=7)}))

    def answer(item: Item, graph: BeliefGraph) -> ItemResult:
        return ItemResult(id=item.id, gold=item.answer, prediction=item.answer, correct=True,
                          llm_calls=1, llm_tokens=3)  # fmt: skip

    @benchmarks.register("test-costs")
    def make() -> Benchmark:
        return Benchmark(name="test-costs", load=lambda p: load("tomi", p), build=build,
                         answer=answer)  # fmt: skip

    result = evaluate("test-costs", _tomi(tmp_path))
    # The story's parse is counted once, on its first item; each answer's own calls stay.
    assert [(r.llm_calls, r.llm_tokens) for r in result.results] == [(3, 10), (1, 3)]
    assert result.summary()["llm_calls"] == 4


# -- time budget and parallel runs (issue 18 items 1 and 6) -------------------------------------
def _register_slow() -> None:
    from beliefgraph.adapters import Benchmark, Item, ItemResult, benchmarks

    def build(item: Item) -> BeliefGraph:
        if "Ella" in item.story:
            while True:  # pure-Python work that never ends: only the budget stops it
                pass
        return track(item.story)

    def answer(item: Item, graph: BeliefGraph) -> ItemResult:
        return ItemResult(id=item.id, gold=item.answer, prediction=graph.ask(item.question).value,
                          correct=graph.ask(item.question).value == item.answer)  # fmt: skip

    @benchmarks.register("test-slow")
    def make() -> Benchmark:
        from beliefgraph.adapters.tomi import load_tomi

        return Benchmark(name="test-slow", load=load_tomi, build=build, answer=answer)


def _two_stories(tmp_path: Path) -> Path:
    second = MINI.replace("Ella", "Mia")
    return _tomi(tmp_path, MINI + second, trace=None)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_story_over_its_budget_is_reported_and_the_run_goes_on(
    workers: int, tmp_path: Path
) -> None:
    _register_slow()
    result = evaluate("test-slow", _two_stories(tmp_path), story_timeout=3, workers=workers)
    assert result.timed_out == ("mini:6",)  # the first item of the slow story
    slow, fast = result.results[:2], result.results[2:]
    assert all(r.prediction is None and "3 s budget" in r.explanation[0] for r in slow)
    assert [r.correct for r in fast] == [True, True]
    assert result.summary()["timed_out"] == ["mini:6"]


def test_story_timeout_must_be_positive(tmp_path: Path) -> None:
    from beliefgraph.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="story_timeout"):
        evaluate("tomi", _tomi(tmp_path), story_timeout=0)


def test_workers_give_the_serial_results_in_item_order(tmp_path: Path) -> None:
    path = _tomi(tmp_path, "".join(MINI.replace("Ella", n) for n in ("Ella", "Mia", "Ola", "Ada")),
                 trace=None)  # fmt: skip
    seen: dict[int, list[str]] = {1: [], 2: []}
    serial = evaluate("tomi", path, on_item=lambda r: seen[1].append(r.id))
    parallel = evaluate("tomi", path, workers=2, on_item=lambda r: seen[2].append(r.id))
    assert parallel.results == serial.results
    assert seen[1] == seen[2] == [r.id for r in serial.results]
    assert parallel.settings["workers"] == 2 and parallel.settings["backend"] == "process"


def test_workers_on_real_data_match_serial(benchmarks: Path) -> None:
    # Hi-ToM's VP and CoTP halves share stories far apart in the file: the merge must put
    # every answer back at its item.
    path = benchmarks / "hitom" / "Hi-ToM_data.json"
    serial = evaluate("hitom", path, limit=120)
    parallel = evaluate("hitom", path, limit=120, workers=2)
    assert parallel.results == serial.results
    assert parallel.metrics == serial.metrics and parallel.parse_coverage == serial.parse_coverage


def test_a_benchmark_with_run_wide_figures_runs_in_one_process(tmp_path: Path) -> None:
    from beliefgraph.adapters import get_benchmark

    assert get_benchmark("dialtom").parallel is False
    assert get_benchmark("tomi").parallel is True


def test_ray_backend_gives_the_serial_results(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    path = _tomi(tmp_path, MINI + MINI.replace("Ella", "Mia"), trace=None)
    serial = evaluate("tomi", path)
    try:
        parallel = evaluate("tomi", path, workers=2, backend="ray")
    finally:
        ray.shutdown()
    assert parallel.results == serial.results
    assert parallel.settings["backend"] == "ray"


def test_result_records_parser_settings_and_headline(tmp_path: Path) -> None:
    result = evaluate("tomi", _tomi(tmp_path), limit=1)
    assert result.parser == "default" and result.headline == "accuracy"
    assert result.settings["limit"] == 1 and result.settings["story_timeout"] == 60.0
    summary = result.summary()
    assert summary["headline"] == {"metric": "accuracy", "value": 1.0}
    assert summary["parser"] == "default"


def test_secrets_in_parser_settings_are_not_recorded(tmp_path: Path, offline: None) -> None:
    result = evaluate("tomi", _tomi(tmp_path), parser="rules",
                      parser_settings={})  # fmt: skip
    assert result.parser == "rules"
    from beliefgraph.adapters.harness import _redact

    assert _redact("api_key", "sk-123") == "***" and _redact("model", "m") == "m"


def test_eval_cli_reports_unread_records_workers_and_text_mode(tmp_path: Path) -> None:
    from beliefgraph.adapters.bigtom import _EXAMPLE_ROW

    data = _tomi(tmp_path, MINI + "8 Where is the spinach really?\n", trace=None)
    summary = tmp_path / "s.json"
    out = CliRunner().invoke(app, ["eval", "tomi", "--data", str(data), "--workers", "2",
                                   "--summary", str(summary)], env={"COLUMNS": "400"})  # fmt: skip
    assert out.exit_code == 0, out.output
    assert "not read:" in out.output and "mini.txt:8" in out.output
    written = json.loads(summary.read_text())
    assert written["load_problems"] == 1 and written["settings"]["workers"] == 2
    csv_file = tmp_path / "one.csv"
    csv_file.write_text(_EXAMPLE_ROW + "\n")
    out = CliRunner().invoke(app, ["eval", "bigtom", "--data", str(csv_file), "--mode", "text",
                                   "--summary", str(summary)])  # fmt: skip
    assert out.exit_code == 0, out.output
    assert json.loads(summary.read_text())["settings"]["mode"] == "text"


def test_result_names_a_parser_set_around_the_run(tmp_path: Path) -> None:
    from beliefgraph.api import using_parser
    from beliefgraph.parsers import RulesParser

    with using_parser(RulesParser(strict=False)):
        result = evaluate("tomi", _tomi(tmp_path), limit=1)
    assert result.parser == "rules"


@pytest.mark.parametrize(
    ("name", "headline"),
    [
        ("tomi", "accuracy"),
        ("hitom", "accuracy"),
        ("tombench", "task_average"),
        ("commet", "story_accuracy"),
        ("omnitom", "stage2.overall"),
    ],
)
def test_each_benchmark_heads_with_its_papers_metric(name: str, headline: str) -> None:
    from beliefgraph.adapters import get_benchmark

    bench = get_benchmark(name)
    assert bench.headline == headline
    assert headline == "accuracy" or headline in bench.metrics
