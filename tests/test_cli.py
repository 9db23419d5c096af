"""The ``beliefgraph track`` command, through typer's runner."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT
from typer.testing import CliRunner

from beliefgraph.cli.main import app

runner = CliRunner()
SALLY = str(ROOT / "examples" / "sally_anne.txt")


def test_track_answers_with_explanation() -> None:
    result = runner.invoke(app, ["track", SALLY, "--ask", "Where will Sally look for the ball?"])
    assert result.exit_code == 0, result.output
    assert "basket" in result.output
    assert "did not perceive" in result.output
    assert "Beliefs at the end of the story" in result.output


def test_track_reads_stdin_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "graph.json"
    text = Path(SALLY).read_text()
    result = runner.invoke(app, ["track", "-", "--json", str(out)], input=text)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["version"] == 1 and data["beliefs"]


def test_missing_file_is_one_red_line() -> None:
    result = runner.invoke(app, ["track", "no/such/story.txt"])
    assert result.exit_code == 1
    assert "no/such/story.txt" in result.output
    assert "Traceback" not in result.output


def test_unparsable_sentence_names_it_and_lenient_keeps_it(tmp_path: Path) -> None:
    story = tmp_path / "story.txt"
    story.write_text("Sally and Anne are in the room.\nThe moon sings softly.\n")
    result = runner.invoke(app, ["track", str(story)])
    assert result.exit_code == 1
    assert "The moon sings softly" in result.output
    result = runner.invoke(app, ["track", str(story), "--lenient"])
    assert result.exit_code == 0, result.output


def test_unsupported_question_is_an_error() -> None:
    result = runner.invoke(app, ["track", SALLY, "--ask", "Why is the sky blue?"])
    assert result.exit_code == 1
    assert "unsupported question" in result.output
