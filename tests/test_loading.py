"""Loaders never abort on one record and never drop one silently (issue 18 item 3).

Every loader reads through ``adapters.loading``: a record it cannot read is a ``LoadProblem``
naming the file, the line and what was expected; the rest is read and scored. Each case
below failed on the old code (a raw ``UnicodeDecodeError`` / ``TypeError`` / ``_csv.Error``,
a whole file lost for one record, or a record silently dropped or mis-scored).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from bench_samples import BUILDERS, FIXTURES, MINI_TOMI, _poison, _tomi
from typer.testing import CliRunner

from beliefgraph import DataFormatError
from beliefgraph.adapters import evaluate, load
from beliefgraph.adapters.loading import LoadProblem, Problems, csv_rows, require_utf8
from beliefgraph.cli.main import app
from beliefgraph.errors import ConfigurationError


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_byte_that_is_not_utf8_is_one_problem_naming_the_file(
    name: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    builder, needs_data = BUILDERS[name]
    bench = request.getfixturevalue("benchmarks") if needs_data else Path(".")
    bad = builder(tmp_path, bench)
    clean = load(name, bad, strict=False)  # before the byte: every record reads
    assert not clean.problems, clean.problems
    for f in [bad] if bad.is_file() else sorted(bad.iterdir()):
        _poison(f)
    with pytest.raises(DataFormatError, match="0xff"):
        load(name, bad)  # strict: the first problem, named, never a raw UnicodeDecodeError
    with pytest.warns(UserWarning, match="could not be read"):
        loaded = load(name, bad, strict=False)
    assert len(loaded.problems) >= 1
    text = str(loaded.problems[0])
    assert "0xff" in text and "not UTF-8" in text
    assert Path(loaded.problems[0].file).name in {f.name for f in tmp_path.iterdir()}
    assert 0 < len(loaded) < len(clean)  # the bad record left out, the others read


def test_tombench_file_truncated_mid_character(tmp_path: Path) -> None:
    record = {"STORY": "小明把球放进盒子。", "QUESTION": "球在哪里？", "OPTION-A": "盒子",
              "OPTION-B": "篮子", "答案\nANSWER": "A"}  # fmt: skip
    line = json.dumps(record, ensure_ascii=False).encode("utf-8")
    path = tmp_path / "cut.jsonl"
    path.write_bytes(line + b"\n" + line[: len(line) // 2 + 1])  # cut inside a character
    with pytest.warns(UserWarning):
        loaded = load("tombench", path, strict=False)
    assert len(loaded) == 1
    (problem,) = loaded.problems
    assert problem.line == 2 and problem.file == str(path)


def test_tomato_a_idx_given_as_a_list_is_reported(tmp_path: Path, benchmarks: Path) -> None:
    records = json.loads((benchmarks / "tomato" / "dataset" / "tomato_fb.json").read_text())[:2]
    records[0]["a_idx"] = [1]
    path = tmp_path / "tomato_fb.json"
    path.write_text(json.dumps(records))
    with pytest.warns(UserWarning):
        loaded = load("tomato", path, strict=False)
    assert len(loaded) == 1
    assert "a_idx [1] is not 0-3" in str(loaded.problems[0])
    assert "record 0" in str(loaded.problems[0])


def test_a_128_kb_bigtom_field_is_one_problem(tmp_path: Path, benchmarks: Path) -> None:
    rows = (benchmarks / "bigtom" / "data" / "bigtom" / "bigtom.csv").read_text().splitlines()
    fields = rows[0].split(";")
    fields[1] = "x" * (128 * 1024 + 1)
    path = tmp_path / "big.csv"
    path.write_text("\n".join([";".join(fields), rows[1]]) + "\n")
    with pytest.warns(UserWarning):
        loaded = load("bigtom", path, strict=False)
    assert len(loaded) == 24  # the other row's conditions
    (problem,) = loaded.problems
    assert problem.line == 1 and "field larger than field limit" in problem.message


@pytest.mark.parametrize(
    "answer",
    [
        "{who} knows about the concealed door.",
        "{who} thinks that the concealed door is open.",
        "{who} is aware of the concealed door.",
    ],
)
def test_bigtom_reads_knows_and_thinks_belief_answers(answer: str, tmp_path: Path) -> None:
    from beliefgraph.adapters.bigtom import _EXAMPLE_ROW

    fields = _EXAMPLE_ROW.split(";")
    fields[8] = answer.format(who="Ann")  # belief_answer_aware
    fields[11] = "Ann does not know about the concealed door."  # belief_answer_not_aware
    path = tmp_path / "variant.csv"
    path.write_text(";".join(fields) + "\n")
    result = evaluate("bigtom", path)
    assert not result.problems and result.n == 24
    beliefs = [r for r in result.results if "belief" in r.id]
    assert beliefs and all(r.prediction is not None for r in beliefs)
    assert result.accuracy == 1.0  # the template parse works on the variant wording


def test_a_bigtom_row_of_empty_fields_is_reported_not_skipped(tmp_path: Path) -> None:
    from beliefgraph.adapters.bigtom import _EXAMPLE_ROW

    path = tmp_path / "gap.csv"
    path.write_text(_EXAMPLE_ROW + "\n" + ";" * 18 + "\n\n" + _EXAMPLE_ROW + "\n")
    with pytest.warns(UserWarning):
        loaded = load("bigtom", path, strict=False)
    assert len(loaded) == 48
    (problem,) = loaded.problems  # the blank line is not a row; the row of empty fields is
    assert problem.line == 2 and "empty field" in problem.message


def test_tomi_question_without_answer_and_without_trace_is_reported(tmp_path: Path) -> None:
    text = MINI_TOMI.replace("\tgreen_crate\t1", "")  # "6 Where will Ella look ...?" alone
    path = tmp_path / "mini.txt"
    path.write_text(text)
    with pytest.warns(UserWarning):
        loaded = load("tomi", path, strict=False)
    assert [i.answer for i in loaded] == ["green_treasure_chest"]
    (problem,) = loaded.problems
    assert problem.line == 6 and "needs its answer" in problem.message
    # and it is no longer read as a story sentence of the next question
    assert "Where will Ella" not in loaded[0].story


def test_simpletom_answer_key_as_a_list_is_reported(tmp_path: Path) -> None:
    lines = (FIXTURES / "simpletom" / "behavior-qa.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    record["answerKey"] = [record["answerKey"]]
    path = tmp_path / "behavior-qa.jsonl"
    path.write_text(json.dumps(record) + "\n" + lines[1] + "\n")
    with pytest.warns(UserWarning):
        loaded = load("simpletom", path, strict=False)
    assert len(loaded) == 1
    assert "answerKey" in loaded.problems[0].message
    assert loaded.problems[0].line == 1


def test_evaluate_counts_problems_in_the_summary_and_scores_the_rest(tmp_path: Path) -> None:
    path = _tomi(tmp_path)
    _poison(path)
    result = evaluate("tomi", path)
    summary = result.summary()
    assert result.n == 2 and result.accuracy == 1.0  # the first story, untouched
    assert summary["load_problems"] == len(result.problems) >= 1
    assert any("0xff" in p for p in summary["problems"])


def test_a_folder_with_one_unreadable_file_reads_the_others(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(MINI_TOMI)
    (tmp_path / "b.txt").write_bytes(b"\xff\xfe not a ToMi file at all\n")
    result = evaluate("tomi", tmp_path)
    assert result.n == 2 and len(result.problems) == 1
    assert result.problems[0].file.endswith("b.txt")


def test_nothing_readable_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.txt"
    path.write_text("not a numbered line\n")
    with pytest.raises(DataFormatError, match="no record could be read"):
        evaluate("tomi", path)


@pytest.mark.parametrize("limit", [-1, 0])
def test_limit_below_one_is_rejected(limit: int, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="limit must be a positive"):
        evaluate("tomi", _tomi(tmp_path), limit=limit)
    out = CliRunner().invoke(app, ["eval", "tomi", "--data", str(tmp_path / "mini.txt"),
                                   "--limit", str(limit)])  # fmt: skip
    assert out.exit_code == 1 and "limit must be a positive" in " ".join(out.output.split())


def test_out_into_a_missing_folder_is_refused_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import beliefgraph.adapters

    ran: list[bool] = []
    monkeypatch.setattr(beliefgraph.adapters, "evaluate", lambda *a, **k: ran.append(True))
    for option in ("--out", "--summary"):
        out = CliRunner().invoke(
            app,
            ["eval", "tomi", "--data", str(_tomi(tmp_path)), option,
             str(tmp_path / "missing" / "x.json")],
        )  # fmt: skip
        assert out.exit_code == 1
        assert "does not exist" in " ".join(out.output.split())  # rich wraps long lines
    assert not ran  # refused before any story was read


# -- the mechanism itself -----------------------------------------------------------------------
def test_problem_renders_file_line_and_message() -> None:
    p = LoadProblem(file="data.jsonl", line=3, message="missing field 'story'")
    assert str(p) == "data.jsonl:3: missing field 'story'"
    assert str(LoadProblem(file="d.json", message="x")) == "d.json: x"


def test_collector_keeps_the_line_a_message_names_and_strips_the_repeat() -> None:
    problems = Problems()
    with problems.record("f.json"):
        raise DataFormatError("f.json:7: not valid JSON")
    assert problems.found == [LoadProblem(file="f.json", line=7, message="not valid JSON")]


def test_csv_rows_goes_on_after_a_bad_row(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    path.write_text("a;b\nc;" + "x" * 140_000 + "\nd;e\n")
    rows = list(csv_rows(path, ";"))
    assert rows[0] == (1, ["a", "b"]) and rows[2] == (3, ["d", "e"])
    assert isinstance(rows[1][1], csv.Error) and rows[1][0] == 2


def test_require_utf8_walks_nested_records() -> None:
    bad = {"turns": [{"text": b"ok \xe9".decode("utf-8", "surrogateescape")}]}
    with pytest.raises(DataFormatError, match="0xe9"):
        require_utf8(bad)
    require_utf8({"turns": [{"text": "fine é"}]})


def test_an_open_json_string_names_its_column_once(tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    path.write_text('{"story": "abc\n')
    with pytest.raises(DataFormatError) as caught:
        load("tombench", path)
    assert "starting at column" in str(caught.value)
    assert "at at" not in str(caught.value)


@pytest.mark.parametrize("text", ["", "  \n\n\t\n"])
@pytest.mark.parametrize("name", ["tomi", "tombench"])
def test_an_empty_file_is_an_error_naming_it(name: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / ("empty.jsonl" if name == "tombench" else "empty.txt")
    path.write_text(text)
    with pytest.raises(DataFormatError, match="empty"):
        evaluate(name, path)
    out = CliRunner().invoke(app, ["eval", name, "--data", str(path)])
    assert out.exit_code == 1
    flat = " ".join(out.output.split())
    assert "no record could be read" in flat and "0.00%" not in flat
