"""The batch re-ask round: an answer replayed from a batch that fails its checks is asked
again in the next round, as a live run would re-ask it, instead of being dropped.

The stub here is the batch round trip itself (write the requests, answer them by hand as
the Batch API would, import, rerun); the replies stand for a model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from llm_fixtures import GOOD, TEXT, batch_answers, write_jsonl
from pydantic import BaseModel, ConfigDict

from beliefgraph.parsers.llm import (
    AnswerPending,
    LLMCache,
    LLMClient,
    LLMParser,
    LLMSalvageWarning,
    LLMSettings,
    ParserRetryExhausted,
    ReaskPending,
    import_results,
)

pytest_plugins = ["llm_fixtures"]
pytestmark = pytest.mark.usefixtures("offline")

# TEXT: [1] Sally puts the ball in the basket. [2] Sally goes out. [3] Anne moves the ball ...
# A move with no destination: the schema rejects it (the OpenToM "moved towards" case).
NO_DESTINATION: dict[str, Any] = {
    **GOOD,
    "items": [
        {**item, "destination": None} if item.get("sentence") == 3 else item
        for item in GOOD["items"]
    ],
}


class Pick(BaseModel):
    model_config = ConfigDict(extra="forbid")
    letter: Literal["A", "B"]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def _round(tmp_path: Path, n: int, reply: Any) -> Path:
    """Answer every request of round ``n``'s batch file with ``reply`` and import them."""
    batch = tmp_path / f"round{n}.jsonl"
    answers = write_jsonl(tmp_path / f"answers{n}.jsonl", batch_answers(batch, reply))
    report = import_results(answers, LLMCache(tmp_path / "c.sqlite3"))
    assert not report.problems, report.lines()
    return batch


def _parser(tmp_path: Path, n: int, **settings: Any) -> LLMParser:
    return LLMParser(model="stub", cache=tmp_path / "c.sqlite3", strict=False,
                     batch_out=tmp_path / f"round{n}.jsonl", **settings)  # fmt: skip


def test_a_schema_failure_is_reasked_in_the_next_round_and_its_answer_used(
    tmp_path: Path,
) -> None:
    with pytest.warns(UserWarning, match="answer pending"):
        _parser(tmp_path, 1).parse(TEXT)
    _round(tmp_path, 1, NO_DESTINATION)

    # Round 2: the answer fails its schema; the salvaged parse is used meanwhile (the move
    # without a destination dropped) and the re-ask goes to the batch file.
    with pytest.warns(LLMSalvageWarning, match="re-ask waits in batch file") as caught:
        story = _parser(tmp_path, 2).parse(TEXT)
    assert any("sentence 3: item dropped" in str(w.message) for w in caught)
    assert [e.kind for e in story.events] == ["move", "exit"]
    [reask] = _lines(tmp_path / "round2.jsonl")
    messages = reask["body"]["messages"]
    first = _lines(tmp_path / "round1.jsonl")[0]["body"]["messages"]
    assert messages[: len(first)] == first  # the original request, then the exchange
    assert json.loads(messages[-2]["content"])["items"][2]["destination"] is None
    assert messages[-2]["role"] == "assistant" and messages[-1]["role"] == "user"
    assert messages[-1]["content"].startswith("Validation Error found:")
    assert "a move needs obj (what is moved) and destination" in messages[-1]["content"]
    assert reask["custom_id"].startswith("story.v2:")  # same prompt, its own cache key

    # Round 3: the re-ask's answer is read instead, checked like any answer; nothing left.
    _round(tmp_path, 2, GOOD)
    parser = _parser(tmp_path, 3)
    with warnings_as_errors():
        story = parser.parse(TEXT)
    assert [e.kind for e in story.events] == ["move", "exit", "move"]
    assert story.events[2].destination == "box"
    assert parser.last_usage.deferred == 0 and parser.last_usage.calls == 0
    assert not (tmp_path / "round3.jsonl").exists()


def test_reasks_stop_after_as_many_rounds_as_a_live_run_reasks(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match="answer pending"):
        _parser(tmp_path, 1, max_retries=2).parse(TEXT)
    _round(tmp_path, 1, NO_DESTINATION)
    for n in (2, 3):  # two re-asks, each answered as badly
        with pytest.warns(LLMSalvageWarning, match="re-ask waits"):
            _parser(tmp_path, n, max_retries=2).parse(TEXT)
        assert len(_lines(tmp_path / f"round{n}.jsonl")) == 1
        _round(tmp_path, n, NO_DESTINATION)
    reask = _lines(tmp_path / "round3.jsonl")[0]["body"]["messages"]
    assert sum(m["content"].startswith("Validation Error found:") for m in reask) == 2
    # No re-ask left: the last answer is salvaged, and no further round is written.
    with pytest.warns(LLMSalvageWarning) as caught:
        story = _parser(tmp_path, 4, max_retries=2).parse(TEXT)
    assert not any("re-ask waits" in str(w.message) for w in caught)
    assert [e.kind for e in story.events] == ["move", "exit"]
    assert not (tmp_path / "round4.jsonl").exists()


def test_no_batch_file_means_no_reask_and_no_call(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match="answer pending"):
        _parser(tmp_path, 1).parse(TEXT)
    _round(tmp_path, 1, NO_DESTINATION)
    # Replaying the cache with no batch file (the endpoint, part of each cache key, as in
    # the batch run: none): the failure stands (salvaged), nothing is sent anywhere.
    parser = LLMParser(model="stub", cache=tmp_path / "c.sqlite3", strict=False,
                       api_key="unused")  # fmt: skip
    with pytest.warns(LLMSalvageWarning) as caught:
        story = parser.parse(TEXT)
    assert not any("re-ask waits" in str(w.message) for w in caught)
    assert [e.kind for e in story.events] == ["move", "exit"]
    assert parser.last_usage.calls == 0
    # Once the re-ask was answered in a batch round, the same replay reads its answer.
    with pytest.warns(LLMSalvageWarning):
        _parser(tmp_path, 2).parse(TEXT)
    _round(tmp_path, 2, GOOD)
    story = parser.parse(TEXT)
    assert [e.kind for e in story.events] == ["move", "exit", "move"]
    assert parser.last_usage.calls == 0


def test_a_structured_reply_failing_its_schema_is_reasked(tmp_path: Path) -> None:
    batch, cache = tmp_path / "b.jsonl", LLMCache(tmp_path / "c.sqlite3")
    client = LLMClient(LLMSettings.resolve(model="stub", batch_out=batch), cache)
    ask = [{"role": "user", "content": "A or B?"}]
    with pytest.raises(AnswerPending):
        client.extract(Pick, ask, prompt="pick.v1")
    bad = write_jsonl(tmp_path / "a.jsonl", batch_answers(batch, {"letter": "C"}))
    report = import_results(bad, cache)
    assert len(report.failures) == 1  # stored as a failure
    with pytest.raises(ReaskPending) as pending:
        client.extract(Pick, ask, prompt="pick.v1")
    assert isinstance(pending.value, ParserRetryExhausted)  # callers salvage it meanwhile
    assert pending.value.raw == '{"letter": "C"}'
    reask = [x for x in _lines(batch) if x["custom_id"] == pending.value.custom_id]
    assert reask[0]["body"]["messages"][-2] == {"role": "assistant", "content": '{"letter": "C"}'}
    batch.write_text(json.dumps(reask[0]) + "\n")  # the next round holds the re-ask only
    import_results(write_jsonl(tmp_path / "b2.jsonl", batch_answers(batch, {"letter": "B"})),
                   cache)  # fmt: skip
    assert client.extract(Pick, ask, prompt="pick.v1").letter == "B"


def test_a_plain_text_answer_failing_its_check_is_reasked_with_the_live_words(
    tmp_path: Path,
) -> None:
    batch, cache = tmp_path / "b.jsonl", LLMCache(tmp_path / "c.sqlite3")
    client = LLMClient(LLMSettings.resolve(model="stub", batch_out=batch), cache)
    ask = [{"role": "user", "content": "Answer (a) or (b)."}]

    def letter(text: str) -> str | None:
        return None if text.strip() in ("(a)", "(b)") else "answer with (a) or (b) only"

    with pytest.raises(AnswerPending):
        client.extract(str, ask, prompt="ab.v1", checks=[letter])
    import_results(write_jsonl(tmp_path / "a.jsonl", batch_answers(batch, "I think b.")), cache)
    with pytest.raises(ReaskPending):
        client.extract(str, ask, prompt="ab.v1", checks=[letter])
    reask = _lines(batch)[-1]["body"]["messages"]
    assert reask[-2:] == [
        {"role": "assistant", "content": "I think b."},
        {"role": "user", "content": "Please correct your answer: answer with (a) or (b) only"},
    ]
    batch.write_text(json.dumps(_lines(batch)[-1]) + "\n")
    import_results(write_jsonl(tmp_path / "b2.jsonl", batch_answers(batch, "(b)")), cache)
    assert client.extract(str, ask, prompt="ab.v1", checks=[letter]) == "(b)"


class warnings_as_errors:
    """Fail on any warning inside the block (the re-ask's answer needs no repair)."""

    def __enter__(self) -> None:
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc: object) -> None:
        self._ctx.__exit__(*exc)
