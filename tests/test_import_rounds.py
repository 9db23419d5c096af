"""``import_rounds`` takes a run's rounds as the files they were recorded in.

The recorded replays keep each batch round's answers in its own file (``..._r2.answers.jsonl``
answers the re-asks of the first round). ``import_rounds`` imports them together, round by
round, so no caller joins the files itself; a line no round asks for names its file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_fixtures import GOOD, TEXT, batch_answers, write_jsonl

from beliefgraph.adapters.direct import import_rounds
from beliefgraph.parsers.llm import LLMCache, LLMParser, import_results

pytest_plugins = ["llm_fixtures"]
pytestmark = [pytest.mark.usefixtures("offline"), pytest.mark.filterwarnings("ignore")]

# Sentence 3's move without a destination: the schema rejects it, so round 2 re-asks it.
NO_DESTINATION: dict[str, Any] = {
    **GOOD,
    "items": [{**i, "destination": None} if i["sentence"] == 3 else i for i in GOOD["items"]],
}


def _parse(cache: Path, batch: Path) -> Any:
    return LLMParser(model="stub", cache=cache, strict=False, batch_out=batch).parse(TEXT)


def _recorded(tmp_path: Path) -> tuple[Path, Path]:
    """Two rounds recorded apart: the first answer (it fails its schema), then the re-ask's."""
    cache, scratch = tmp_path / "scratch.sqlite3", tmp_path / "scratch"
    scratch.mkdir()
    _parse(cache, scratch / "r1.jsonl")
    first = write_jsonl(tmp_path / "first.answers.jsonl",
                        batch_answers(scratch / "r1.jsonl", NO_DESTINATION))  # fmt: skip
    import_results(first, LLMCache(cache))
    _parse(cache, scratch / "r2.jsonl")
    second = write_jsonl(tmp_path / "first_r2.answers.jsonl",
                         batch_answers(scratch / "r2.jsonl", GOOD))  # fmt: skip
    return first, second


def test_a_runs_rounds_are_imported_from_their_own_files(tmp_path: Path) -> None:
    first, second = _recorded(tmp_path)
    cache, batch = tmp_path / "replay.sqlite3", tmp_path / "replay.jsonl"
    report = import_rounds([first, second], LLMCache(cache), lambda: _parse(cache, batch))
    # the first answer is stored as a failure (its re-ask is the second round), and the
    # second round's answer is stored: it was asked for once the first was in
    assert not report.problems and report.stored == 1 and len(report.failures) == 1
    assert report.failures[0][2].startswith("first.answers.jsonl: 1 validation error")
    story = _parse(cache, tmp_path / "left.jsonl")
    assert [e.kind for e in story.events] == ["move", "exit", "move"]  # the re-ask's answer
    assert not (tmp_path / "left.jsonl").exists()  # nothing left to ask


def test_a_line_no_round_asks_for_names_its_file(tmp_path: Path) -> None:
    first, second = _recorded(tmp_path)
    stray = json.loads(second.read_text().splitlines()[0])
    stray["custom_id"] = "story.v2:" + "0" * 32
    extra = write_jsonl(tmp_path / "extra.answers.jsonl", [stray])
    cache, batch = tmp_path / "replay.sqlite3", tmp_path / "replay.jsonl"
    report = import_rounds([first, second, extra], LLMCache(cache), lambda: _parse(cache, batch))
    assert report.stored == 1
    [(line, custom_id, why)] = report.problems
    assert (line, custom_id) == (1, stray["custom_id"])
    assert why.startswith("extra.answers.jsonl: unknown custom_id")
