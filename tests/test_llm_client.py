"""The one LLM client, offline: generic replies, the shield, and batch files end to end.

A scripted OpenAI-compatible stub (``llm_fixtures``) answers; batch files are answered by
a function that reads each request's body, as a batch provider would.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from llm_fixtures import GOOD, TEXT
from llm_fixtures import batch_answers as _answer
from llm_fixtures import write_jsonl as _write
from pydantic import BaseModel, ValidationInfo, field_validator
from typer.testing import CliRunner

from beliefgraph.cli.main import app
from beliefgraph.parsers.llm import (
    AnswerPending,
    LLMCache,
    LLMClient,
    LLMParser,
    LLMSettings,
    ReaskPending,
    export_pending,
    import_results,
)

if TYPE_CHECKING:
    from llm_fixtures import StubServer

pytest_plugins = ["llm_fixtures"]
pytestmark = pytest.mark.usefixtures("offline")

TEMPLATED = "Ann writes {{ x }} and {% if y %}z{% endif %} then {% endraw %} and {#c#}."


class Pick(BaseModel):
    """A reply type no parser knows: the client is generic over it."""

    letter: str

    @field_validator("letter")
    @classmethod
    def _allowed(cls, v: str, info: ValidationInfo) -> str:
        allowed = (info.context or {}).get("letters", "ABCD")
        if v not in allowed:
            raise ValueError(f"letter must be one of {allowed}")
        return v


def client(stub: StubServer | None = None, tmp_path: Path | None = None, **kw: Any) -> LLMClient:
    base = stub.base_url if stub is not None else "http://127.0.0.1:9/v1"
    settings = LLMSettings.resolve(base_url=base, model="stub", **kw)
    cache = LLMCache(tmp_path / "c.sqlite3") if tmp_path is not None else None
    return LLMClient(settings, cache)


# -- one generic client -----------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["tools", "json_schema", "json_object"])
def test_any_pydantic_model_is_a_reply_type(stub: StubServer, mode: str) -> None:
    stub.script({"letter": "E"}, {"letter": "B"})
    c = client(stub, mode=mode)
    reply = c.extract(Pick, [{"role": "user", "content": "pick"}], context={"letters": "AB"})
    assert isinstance(reply, Pick) and reply.letter == "B"
    assert "letter must be one of AB" in json.dumps(stub.requests[1]["messages"])
    assert c.usage.calls == 2 and c.usage.prompt_tokens == 200


def test_plain_text_replies_use_the_same_cache_and_counts(stub: StubServer, tmp_path: Path) -> None:
    stub.script("Paris")
    c = client(stub, tmp_path)
    messages = [{"role": "user", "content": "Capital of France?"}]
    assert c.extract(str, messages) == "Paris"
    again = client(stub, tmp_path)
    assert again.extract(str, messages) == "Paris"
    assert stub.calls == 1 and (again.usage.calls, again.usage.cached) == (0, 1)
    assert "tools" not in stub.requests[0] and "response_format" not in stub.requests[0]


def test_checks_reask_any_reply_type(stub: StubServer) -> None:
    stub.script({"letter": "A"}, {"letter": "C"})
    reply = client(stub).extract(
        Pick, [{"role": "user", "content": "pick"}],
        checks=[lambda p: "not A, please" if p.letter == "A" else None],
    )  # fmt: skip
    assert reply.letter == "C"
    assert "not A, please" in json.dumps(stub.requests[1]["messages"])


@pytest.mark.parametrize("reply_type", [Pick, str])
@pytest.mark.parametrize("mode", ["tools", "json_object"])
def test_template_syntax_reaches_the_model_verbatim(
    stub: StubServer, reply_type: Any, mode: str
) -> None:
    stub.script({"letter": "A"} if reply_type is Pick else "ok")
    system = "Rules {{ with }} braces {% raw %} too"
    client(stub, mode=mode).extract(
        reply_type,
        [{"role": "system", "content": system}, {"role": "user", "content": TEMPLATED}],
        context={"letters": "AB", "x": "SHOULD NOT APPEAR"},
    )
    contents = [m["content"] for m in stub.requests[0]["messages"]]
    assert contents == [system, TEMPLATED]


# -- batch files: the whole round trip ---------------------------------------------------------
def test_batch_round_trip_run_answer_import_rerun(stub: StubServer, tmp_path: Path) -> None:
    batch = tmp_path / "b.jsonl"
    cache = tmp_path / "cache.sqlite3"
    settings = {"base_url": stub.base_url, "model": "stub", "cache": cache, "strict": False}
    parser = LLMParser(batch_out=batch, **settings)
    with pytest.warns(UserWarning, match="answer pending in batch file"):
        story = parser.parse(TEXT)
    assert stub.calls == 0 and parser.last_usage.deferred == 1
    assert story.events == () and not any(s.parsed for s in story.sentences)
    assert all(str(batch) in (s.reason or "") for s in story.sentences)
    (line,) = [json.loads(x) for x in batch.read_text().splitlines()]
    assert (line["method"], line["url"]) == ("POST", "/v1/chat/completions")
    assert line["body"]["model"] == "stub" and line["body"]["tools"]
    assert any(TEXT.split(". ")[0] in m["content"] for m in line["body"]["messages"])
    assert len(line["custom_id"]) <= 64 and line["custom_id"].startswith("story.v2:")
    with pytest.warns(UserWarning):  # the same request again: written once
        LLMParser(batch_out=batch, **settings).parse(TEXT)
    assert len(batch.read_text().splitlines()) == 1

    answers = _write(tmp_path / "answers.jsonl", _answer(batch, GOOD))
    result = CliRunner().invoke(app, ["llm", "import", str(answers), "--cache", str(cache)])
    assert result.exit_code == 0, result.output
    assert "stored 1 answer(s)" in result.output

    rerun = LLMParser(batch_out=batch, **settings)
    story = rerun.parse(TEXT)
    assert [e.kind for e in story.events] == ["move", "exit", "move"]
    assert (rerun.last_usage.calls, rerun.last_usage.cached, rerun.last_usage.deferred) == (0, 1, 0)
    assert stub.calls == 0
    assert export_pending(LLMCache(cache), tmp_path / "left.jsonl") == 0


def test_strict_parser_raises_answer_pending(tmp_path: Path) -> None:
    parser = LLMParser(model="stub", batch_out=tmp_path / "b.jsonl", cache=tmp_path / "c.db")
    with pytest.raises(AnswerPending) as err:
        parser.parse(TEXT)
    assert err.value.path == tmp_path / "b.jsonl" and err.value.custom_id.startswith("story.")


def test_batch_out_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BELIEFGRAPH_LLM_BATCH_OUT", str(tmp_path / "env.jsonl"))
    settings = LLMSettings.resolve(model="m")  # a batch run needs no endpoint
    assert settings.batch_out == tmp_path / "env.jsonl"


def test_import_reports_every_bad_line_and_keeps_the_good(tmp_path: Path) -> None:
    batch = tmp_path / "b.jsonl"
    cache = LLMCache(tmp_path / "c.sqlite3")
    c = LLMClient(LLMSettings.resolve(model="stub", batch_out=batch), cache)
    for q in ("one", "two", "three"):
        with pytest.raises(AnswerPending):
            c.extract(Pick, [{"role": "user", "content": q}], prompt="pick.v2")
    good, bad_schema, other_model = _answer(batch, {"letter": "A"})
    bad_schema["response"]["body"]["choices"][0]["message"]["tool_calls"][0]["function"][
        "arguments"
    ] = '{"letter": 5}'
    other_model = _answer(batch, {"letter": "B"}, model="other-model")[2]
    unknown = {**good, "custom_id": "pick.v2:" + "0" * 32}
    old_prompt = {**good, "custom_id": "pick.v1:" + "1" * 32}
    results = _write(tmp_path / "r.jsonl", [
        good, "{not json", bad_schema, other_model, unknown, old_prompt,
        {"custom_id": good["custom_id"], "response": None, "error": {"code": "x"}},
    ])  # fmt: skip
    report = import_results(results, cache)
    assert report.stored == 1
    assert [(n, cid) for n, cid, _ in report.failures] == [(3, bad_schema["custom_id"])]
    problems = {n: why for n, _, why in report.problems}
    assert "malformed line" in problems[2]
    assert "'other-model'" in problems[4] and "'stub'" in problems[4]
    assert "unknown custom_id" in problems[5]
    assert "written for prompt pick.v1" in problems[6] and "pick.v2" in problems[6]
    assert "error" in problems[7]
    assert [x.split(":")[0] for x in report.lines()] == [f"line {n}" for n in range(2, 8)]

    rerun = LLMClient(LLMSettings.resolve(model="stub", batch_out=batch), cache)
    assert rerun.extract(Pick, [{"role": "user", "content": "one"}], prompt="pick.v2").letter == "A"
    # The failed answer is re-asked in the next round (since stop 13; before, the failure
    # was final): still a ParserRetryExhausted, so callers salvage it meanwhile.
    with pytest.raises(ReaskPending, match="failed validation"):
        rerun.extract(Pick, [{"role": "user", "content": "two"}], prompt="pick.v2")
    with pytest.raises(AnswerPending):  # the other model's answer was not stored
        rerun.extract(Pick, [{"role": "user", "content": "three"}], prompt="pick.v2")
    # "three" and the re-ask of "two"
    assert export_pending(cache, tmp_path / "again.jsonl") == 2


def test_plain_text_batch_answers_are_stored_as_text(tmp_path: Path) -> None:
    batch = tmp_path / "b.jsonl"
    cache = LLMCache(tmp_path / "c.sqlite3")
    c = LLMClient(LLMSettings.resolve(model="stub", batch_out=batch), cache)
    with pytest.raises(AnswerPending):
        c.extract(str, [{"role": "user", "content": "Answer: (a) or (b)?"}])
    report = import_results(_write(tmp_path / "r.jsonl", _answer(batch, "(b)")), cache)
    assert report.ok and report.stored == 1
    assert c.extract(str, [{"role": "user", "content": "Answer: (a) or (b)?"}]) == "(b)"


def test_eval_finishes_and_counts_the_requests_written(tmp_path: Path) -> None:
    from beliefgraph.adapters import evaluate

    lines = [f"{i} {s}." for i, s in enumerate(TEXT.rstrip(".").split(". "), start=1)]
    data = tmp_path / "mini.txt"
    data.write_text("\n".join([*lines, "4 Where is the ball really?\tbox\t1"]) + "\n")
    batch = tmp_path / "b.jsonl"
    settings = {"model": "stub", "batch_out": batch, "cache": tmp_path / "c.sqlite3"}
    first = evaluate("tomi", data, parser="llm", parser_settings=settings)
    assert first.n == 1 and len(batch.read_text().splitlines()) == 1
    assert first.llm_deferred == 1 and first.summary()["llm_deferred"] == 1
    assert first.results[0].unparsed == tuple(s + "." for s in TEXT.rstrip(".").split(". "))
    answers = _write(tmp_path / "a.jsonl", _answer(batch, GOOD))
    assert import_results(answers, LLMCache(tmp_path / "c.sqlite3")).ok
    second = evaluate("tomi", data, parser="llm", parser_settings=settings)
    assert second.accuracy == 1.0 and second.llm_calls == 0


# -- every LLM call site goes through the one client --------------------------------------------
def test_option_scorer_and_judge_share_the_cache_and_the_shield(
    stub: StubServer, tmp_path: Path
) -> None:
    from beliefgraph.adapters.dialogue import LLMOptionScorer
    from beliefgraph.adapters.omnitom.judge import LLMJudge
    from beliefgraph.adapters.omnitom.records import OmniRow

    cache = tmp_path / "c.sqlite3"
    stub.script({"answer": "B", "reason": "r"})
    messages = LLMOptionScorer.messages(TEMPLATED, "Which?", ["x", "y"])
    for _ in range(2):  # the second scorer, as in a rerun, reads the cache
        scorer = LLMOptionScorer(base_url=stub.base_url, model="stub", cache=cache)
        assert scorer.choose(messages, 2) == (1, "r")
    assert stub.calls == 1 and scorer.calls == 0
    assert TEMPLATED in stub.user_messages(0)[0]

    row = OmniRow(actor="world", belief="Ann is in the room {{ x }}")
    stub.script(
        {
            "prediction": [{"actor": "world", "belief": row.belief, "match_count": 1}],
            "ground_truth": [{"actor": "world", "belief": row.belief, "match_count": 1}],
        }
    )
    for _ in range(2):
        judge = LLMJudge(base_url=stub.base_url, model="stub", cache=cache)
        assert judge.align([row], [row]).mc_pred == (1,)
    assert stub.calls == 2 and "{{ x }}" in stub.user_messages(1)[0]


def test_option_scorer_defers_to_a_batch_file(tmp_path: Path) -> None:
    from beliefgraph.adapters.dialogue import LLMOptionScorer

    batch = tmp_path / "b.jsonl"
    scorer = LLMOptionScorer(model="stub", batch_out=batch, cache=tmp_path / "c.sqlite3")
    with pytest.raises(AnswerPending):
        scorer.choose(LLMOptionScorer.messages("ctx", "Which?", ["x", "y"]), 2)
    (line,) = batch.read_text().splitlines()
    assert json.loads(line)["custom_id"].startswith("option.v1:")


def test_auto_parser_defers_only_what_the_rules_left(tmp_path: Path) -> None:
    from beliefgraph.parsers.llm import AutoParser

    batch = tmp_path / "b.jsonl"
    parser = AutoParser(model="stub", batch_out=batch, cache=tmp_path / "c.db", strict=False)
    with pytest.warns(UserWarning, match="answer pending"):
        story = parser.parse(TEXT + " Anne feels guilty about it.")
    assert [s.parsed for s in story.sentences] == [True, True, True, False]
    assert story.sentences[3].reason is not None and str(batch) in story.sentences[3].reason
    assert story.sentences[0].reason is None and story.events[3].parser == "rules"
    (line,) = batch.read_text().splitlines()
    assert json.loads(line)["custom_id"].startswith("auto.v2:")
