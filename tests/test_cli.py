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
    story.write_text("Sally and Anne are in the room.\nAnne feels guilty.\n")
    result = runner.invoke(app, ["track", str(story)])
    assert result.exit_code == 1
    assert "Anne feels guilty" in result.output
    result = runner.invoke(app, ["track", str(story), "--lenient"])
    assert result.exit_code == 0, result.output


def test_unsupported_question_is_an_error() -> None:
    result = runner.invoke(app, ["track", SALLY, "--ask", "Why is the sky blue?"])
    assert result.exit_code == 1
    assert "unsupported question" in result.output


# -- the CLI as people use it (issue 17 item 5, issue 15 item 2) --------------------------------
def test_each_ask_is_answered_on_its_own() -> None:
    result = runner.invoke(
        app,
        [
            "track", SALLY, "--no-table",
            "--ask", "Where will Sally look for the ball?",
            "--ask", "Why is the sky blue?",
            "--ask", "Who knows where the ball is?",
        ],
    )  # fmt: skip
    assert result.exit_code == 1  # some question failed
    assert "basket" in result.output  # the one before the failure
    assert "unsupported question 'Why is the sky blue?'" in result.output
    assert "Who knows where the ball is?\n  Anne\n" in result.output  # the one after
    assert "1 of 3 question(s) could not be answered" in result.output
    assert "Traceback" not in result.output


def test_table_fits_80_columns_and_keeps_every_column() -> None:
    result = runner.invoke(app, ["track", SALLY], env={"COLUMNS": "80"}, terminal_width=80)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    header = next(line for line in lines if "holder" in line)
    for column in ("holder", "ord", "belief", "T", "acc", "src", "ctx", "from"):
        assert column in header.split(), header
    assert "…" not in result.output  # nothing cut off
    legend = " ".join(lines[lines.index(next(x for x in lines if x.startswith("T truth"))) :])
    assert "Mem=Memory" in legend and "Temp=Temporal" in legend
    # Sally's false belief row keeps all four labels and its event.
    row = next(line for line in lines if "Sally" in line and "in the basket" in line)
    assert row.split()[-5:] == ["F", "Priv", "Mem", "Temp", "4"]


def test_wide_terminal_spells_labels_out() -> None:
    result = runner.invoke(app, ["track", SALLY], env={"COLUMNS": "160"}, terminal_width=160)
    assert result.exit_code == 0, result.output
    assert "Perception" in result.output and "context" in result.output
    assert "T truth" not in result.output


def test_warnings_are_readable_lines(tmp_path: Path) -> None:
    story = tmp_path / "story.txt"
    story.write_text("Sally and Anne are in the room.\nAnne feels guilty.\nBirds hum.\n")
    result = runner.invoke(app, ["track", str(story), "--lenient", "--no-table"])
    assert result.exit_code == 0, result.output
    assert "UserWarning" not in result.output and "warnings.warn" not in result.output
    warning_lines = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert len(warning_lines) == 1  # one warning naming both sentences, not one each
    assert "Anne feels guilty." in result.output and "Birds hum." in result.output


SHARED = ["--parser", "rules", "--lenient", "--max-order", "3"]


def _spy(monkeypatch) -> list[dict]:
    import beliefgraph.api

    calls: list[dict] = []
    real = beliefgraph.api.track

    def spy(text, **kwargs):
        calls.append(dict(kwargs))
        kwargs.pop("batch_out", None)
        for key in ("base_url", "model", "mode"):
            kwargs.pop(key, None)
        kwargs["parser"] = "rules"
        return real(text, **kwargs)

    monkeypatch.setattr(beliefgraph.api, "track", spy)
    return calls


def test_defaults_match_python(monkeypatch) -> None:
    calls = _spy(monkeypatch)
    assert runner.invoke(app, ["track", SALLY, "--no-table"]).exit_code == 0
    assert runner.invoke(app, ["check", SALLY]).exit_code == 0
    for kwargs in calls:
        assert kwargs["max_order"] == 4  # like track()
        assert kwargs["strict"] is True and kwargs["parser"] is None


def test_every_command_takes_the_shared_options(monkeypatch, tmp_path: Path) -> None:
    calls = _spy(monkeypatch)
    llm = [
        "--llm-base-url", "http://127.0.0.1:9/v1", "--llm-model", "m", "--llm-mode",
        "json_object", "--batch-out", str(tmp_path / "b.jsonl"),
    ]  # fmt: skip
    commands = [
        ["track", SALLY, "--no-table", *SHARED],
        ["check", SALLY, *SHARED],
        ["show", SALLY, "--out", str(tmp_path / "g.html"), "--parser", "rules", "--lenient"],
        ["omnitom", SALLY, "--parser", "rules", "--lenient"],
    ]
    for command in commands:
        result = runner.invoke(app, command + llm[:0])
        assert result.exit_code == 0, (command, result.output)
    for command in commands:
        result = runner.invoke(app, [*command, *llm])
        assert result.exit_code == 0, (command, result.output)
    with_llm = calls[len(commands) :]
    for kwargs in with_llm:
        assert kwargs["parser"] == "rules" and kwargs["strict"] is False
        assert kwargs["base_url"] == "http://127.0.0.1:9/v1" and kwargs["model"] == "m"
        assert kwargs["mode"] == "json_object"
        assert kwargs["batch_out"] == tmp_path / "b.jsonl"
    help_text = runner.invoke(app, ["eval", "--help"], terminal_width=200).output
    for option in ("--parser", "--llm-base-url", "--llm-model", "--llm-mode", "--lenient",
                   "--batch-out"):  # fmt: skip
        assert option in help_text


def test_an_llm_option_without_parser_means_the_llm_parser(monkeypatch) -> None:
    calls = _spy(monkeypatch)
    result = runner.invoke(app, ["track", SALLY, "--no-table", "--llm-model", "m"])
    assert result.exit_code == 0, result.output
    assert calls[0]["parser"] == "llm" and calls[0]["model"] == "m"


def test_eval_refuses_strict_with_a_reason(tmp_path: Path) -> None:
    data = tmp_path / "x.txt"
    data.write_text("")
    result = runner.invoke(app, ["eval", "tomi", "--data", str(data), "--strict"])
    assert result.exit_code == 1
    assert "leniently" in result.output


def test_table_lists_to_table_order_while_questions_reach_max_order(tmp_path: Path) -> None:
    story = tmp_path / "story.txt"
    story.write_text(
        "Sally, Anne and Tom are in the room. Sally puts the ball in the basket. "
        "Sally goes out. Anne moves the ball to the box.\n"
    )
    q = "Where does Tom think Anne thinks Sally thinks the ball is?"
    wide = {"COLUMNS": "80"}
    result = runner.invoke(app, ["track", str(story), "-a", q], env=wide)
    assert result.exit_code == 0, result.output

    def orders(output: str) -> set[str]:
        rows = [ln.split() for ln in output.splitlines()]
        holders = ("world", "Sally", "Anne", "Tom")
        return {r[1] for r in rows if len(r) > 1 and r[0] in holders and r[1].isdigit()}

    assert "(to order 2)" in result.output
    assert orders(result.output) == {"0", "1", "2"}
    assert f"{q}\n  basket" in result.output  # a third-order answer all the same
    deep = runner.invoke(app, ["track", str(story), "--table-order", "3"], env=wide)
    assert "(to order 3)" in deep.output and orders(deep.output) == {"0", "1", "2", "3"}


# -- QA report 21:38: empty input, folders, the strict-parse error in the CLI's words ---------
def test_an_empty_story_is_an_error_for_every_command(tmp_path: Path) -> None:
    for text in ("", " \n\t\n"):
        story = tmp_path / "empty.txt"
        story.write_text(text)
        for command in ("track", "show", "check", "omnitom"):
            result = runner.invoke(app, [command, str(story)])
            assert result.exit_code == 1, (command, result.output)
            assert "empty.txt: the file is empty" in " ".join(result.output.split())
        result = runner.invoke(app, ["track", "-"], input=text)
        assert result.exit_code == 1 and "standard input: the file is empty" in result.output


def test_a_folder_is_named_as_a_folder(tmp_path: Path) -> None:
    result = runner.invoke(app, ["track", str(tmp_path)])
    flat = " ".join(result.output.split())  # rich wraps long lines
    assert result.exit_code == 1
    assert "is a folder" in flat and "no such file" not in flat


def test_strict_parse_error_names_cli_options_and_sentence_numbers(tmp_path: Path) -> None:
    story = tmp_path / "story.txt"
    story.write_text("Sally is in the room. Anne feels guilty. Birds hum.\n")
    result = runner.invoke(app, ["track", str(story)])
    flat = " ".join(result.output.split())
    assert result.exit_code == 1
    assert "--lenient" in flat and "--parser llm" in flat
    assert "strict=False" not in flat and 'parser="llm"' not in flat
    assert "sentence 2, line 1: 'Anne feels guilty.'" in flat
    assert "sentence 3, line 1: 'Birds hum.'" in flat
    warned = runner.invoke(app, ["track", str(story), "--lenient", "--no-table"])
    flat = " ".join(warned.output.split())
    assert "sentence 2 'Anne feels guilty.'" in flat and "sentence 3 'Birds hum.'" in flat


def test_check_warns_that_story_options_do_not_apply_to_a_saved_graph(tmp_path: Path) -> None:
    saved = tmp_path / "graph.json"
    assert runner.invoke(app, ["track", SALLY, "--no-table", "--json", str(saved)]).exit_code == 0
    result = runner.invoke(app, ["check", str(saved), "--max-order", "2", "--parser", "llm"])
    flat = " ".join(result.output.split())
    assert result.exit_code == 0, result.output
    assert "--max-order, --parser do not apply" in flat and "graph.json" in flat
    plain = runner.invoke(app, ["check", str(saved)])
    assert plain.exit_code == 0 and "warning" not in plain.output
    story = runner.invoke(app, ["check", SALLY, "--max-order", "2"])
    assert story.exit_code == 0 and "warning" not in story.output


def test_an_answer_the_graph_cannot_give_prints_unknown_not_none(tmp_path: Path) -> None:
    story = tmp_path / "story.txt"
    story.write_text(
        "Anna is in the room. Anna puts the ball in the box. Anna leaves the room. "
        "Ben enters the room.\n"
    )
    result = runner.invoke(app, ["track", str(story), "--no-table", "-a",
                                 "Where does Ben think the ball is?"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "None" not in result.output and "unknown" in result.output
