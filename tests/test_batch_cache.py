"""A batch run that names no cache keeps it beside its batch file, not in the user's cache.

A batch export writes a pending row per request into the LLM cache. With no cache named
(no ``cache=``, no ``BELIEFGRAPH_LLM_CACHE``) that used to be the user's own cache in the
home folder, filled silently with requests that may never be answered. Now the run's cache
is ``b.cache.sqlite3`` beside ``b.jsonl``; the pending message and ``beliefgraph eval`` say
so, with the import command that uses it, and the round trip (export, answer, import,
rerun) works from the command line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import benchmarks_dir
from llm_fixtures import GOOD, TEXT, batch_answers, write_jsonl
from typer.testing import CliRunner

from beliefgraph.cli.main import app
from beliefgraph.parsers.llm import AnswerPending, LLMParser, make_client
from beliefgraph.parsers.llm.cache import batch_cache_path, default_cache_path

pytest_plugins = ["llm_fixtures"]
runner = CliRunner()


@pytest.fixture
def no_cache_set(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No cache configured; the user's cache folder is a temporary "home"."""
    for name in ("BELIEFGRAPH_LLM_CACHE", "BELIEFGRAPH_LLM_BATCH_OUT", "BELIEFGRAPH_LLM_BASE_URL",
                 "OPENAI_BASE_URL", "BELIEFGRAPH_LLM_MODE"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    assert default_cache_path() == tmp_path / "home" / "beliefgraph" / "llm.sqlite3"
    return default_cache_path()


def test_a_batch_run_keeps_its_cache_beside_the_batch_file(
    tmp_path: Path, no_cache_set: Path
) -> None:
    batch = tmp_path / "runs" / "b.jsonl"
    beside = tmp_path / "runs" / "b.cache.sqlite3"
    assert batch_cache_path(batch) == beside
    assert Path(make_client(model="m", batch_out=batch).cache.path) == beside
    with pytest.raises(AnswerPending) as pending:
        LLMParser(model="stub", batch_out=batch).parse(TEXT)
    assert f"--cache {beside}" in str(pending.value)  # the import command that finds it
    assert batch.exists() and beside.exists()
    assert not no_cache_set.exists()  # the user's own cache is untouched


def test_a_named_cache_still_wins(
    tmp_path: Path, no_cache_set: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = tmp_path / "b.jsonl"
    mine = tmp_path / "mine.sqlite3"
    assert Path(make_client(model="m", batch_out=batch, cache=mine).cache.path) == mine
    monkeypatch.setenv("BELIEFGRAPH_LLM_CACHE", str(tmp_path / "env.sqlite3"))
    assert batch_cache_path(batch) == tmp_path / "env.sqlite3"
    assert Path(make_client(model="m", batch_out=batch).cache.path) == tmp_path / "env.sqlite3"
    # without a batch file the default is the user's cache, as before
    monkeypatch.delenv("BELIEFGRAPH_LLM_CACHE")
    client = make_client(base_url="http://127.0.0.1:9/v1", model="m")
    assert Path(client.cache.path) == no_cache_set


def test_the_command_line_round_trip_uses_the_batch_files_cache(
    tmp_path: Path, no_cache_set: Path
) -> None:
    story = tmp_path / "story.txt"
    story.write_text(TEXT + "\n")
    batch = tmp_path / "b.jsonl"
    track = ["track", str(story), "--llm-model", "stub", "--batch-out", str(batch), "--lenient",
             "--ask", "Where will Sally look for the ball?"]  # fmt: skip
    first = runner.invoke(app, track)
    assert first.exit_code == 0, first.output
    assert len(batch.read_text().splitlines()) == 1
    answers = write_jsonl(tmp_path / "answers.jsonl", batch_answers(batch, GOOD))
    cache = batch_cache_path(batch)
    imported = runner.invoke(app, ["llm", "import", str(answers), "--cache", str(cache)])
    assert imported.exit_code == 0, imported.output
    assert "stored 1 answer(s)" in imported.output
    again = runner.invoke(app, track)
    assert again.exit_code == 0, again.output
    assert "basket" in again.output
    assert len(batch.read_text().splitlines()) == 1  # nothing more to ask
    assert not no_cache_set.exists()


def test_eval_says_where_the_batch_cache_is(tmp_path: Path, no_cache_set: Path) -> None:
    data = benchmarks_dir() / "tomi" / "tomi_balanced_story_types" / "fb_all_val.txt"
    if not data.exists():
        pytest.skip(f"ToMi not found at {data}")
    batch = tmp_path / "b.jsonl"
    result = runner.invoke(
        app,
        ["eval", "tomi", "--data", str(data), "--limit", "1", "--llm-model", "stub",
         "--batch-out", str(batch)],
        env={"COLUMNS": "400"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    cache = tmp_path / "b.cache.sqlite3"
    assert f"wrote 1 LLM request(s) to {batch}" in flat
    assert f"`beliefgraph llm import ANSWERS.jsonl --cache {cache}`" in flat
    assert cache.exists() and not no_cache_set.exists()
    assert json.loads(batch.read_text().splitlines()[0])["body"]["model"] == "stub"
