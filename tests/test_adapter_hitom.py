"""The Hi-ToM adapter: loading the release, scoring, and classifying contradicted labels."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from beliefgraph import DataFormatError, UnknownNameError
from beliefgraph.adapters import evaluate, load
from beliefgraph.adapters.hitom import DISAGREEMENTS, clean_story, read_choices

RECORD = {
    "prompting_type": "VP",
    "deception": False,
    "story_length": 1,
    "question_order": 1,
    "sample_id": 7,
    "story": (
        "Read the following story and answer the multiple-choice question.\n"
        "Story:\n"
        "1 Ella and Avery entered the garage.\n"
        "2 The spinach is in the green_crate.\n"
        "3 Ella exited the garage.\n"
        "4 Avery moved the spinach to the blue_box.\n"
        "5 Avery exited the garage.\n"
        "Note: You should assume the following.\n"
        "***"
    ),
    "question": "Where does Ella really think the spinach is?",
    "choices": "A. blue_box, B. green_crate",
    "answer": "green_crate",
}


def _write(tmp_path: Path, records: list[object], name: str = "mini.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"data": records}, indent=1), encoding="utf-8")
    return path


def _hitom_file(benchmarks: Path) -> Path:
    path = benchmarks / "hitom" / "Hi-ToM_data.json"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    return path


# -- loading ---------------------------------------------------------------------------------
def test_release_loads_with_prompt_lines_stripped(benchmarks: Path) -> None:
    items = load("hitom", _hitom_file(benchmarks))
    assert len(items) == 752
    assert len({i.id for i in items}) == 752
    assert len({i.story for i in items}) == 102  # VP and CoTP share their stories
    assert Counter(i.meta["question_order"] for i in items) == {
        0: 150,
        1: 150,
        2: 151,
        3: 151,
        4: 150,
    }
    for item in items:
        assert all(line.split(" ", 1)[0].isdigit() for line in item.story.splitlines())
        assert len(item.choices) == 15 and item.answer in item.choices
    first = items[0]
    assert first.id == "Hi-ToM_data:CoTP:0"
    assert first.meta["line"] == 3 and first.meta["file"] == "Hi-ToM_data.json"


def test_prompt_text_is_stripped_and_choices_split(tmp_path: Path) -> None:
    (item,) = load("hitom", _write(tmp_path, [RECORD]))
    assert item.story.splitlines() == [
        "1 Ella and Avery entered the garage.",
        "2 The spinach is in the green_crate.",
        "3 Ella exited the garage.",
        "4 Avery moved the spinach to the blue_box.",
        "5 Avery exited the garage.",
    ]
    assert item.choices == ("blue_box", "green_crate")
    assert item.meta["prompting_type"] == "VP" and item.meta["question_order"] == 1


def test_helpers() -> None:
    assert clean_story("Story:\n1 A entered the hall.\n\n***\nNote: x") == "1 A entered the hall."
    assert read_choices("A. x, B. y_z, C. w") == ("x", "y_z", "w")
    assert read_choices("x, y") == ()
    assert read_choices("A. x, C. y") == ()  # letters out of order


def test_missing_file() -> None:
    with pytest.raises(DataFormatError, match="no such file"):
        load("hitom", "/nonexistent/Hi-ToM_data.json")


def test_folder_without_json(tmp_path: Path) -> None:
    with pytest.raises(DataFormatError, match=r"no Hi-ToM \.json files"):
        load("hitom", tmp_path)


def test_invalid_json_names_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"data": [\n {"a": 1},\n {"a": ]\n}', encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"bad\.json:3: not valid JSON"):
        load("hitom", path)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"answer": "red_box"}, "not one of the choices"),
        ({"choices": "blue_box; green_crate"}, "cannot read the choices"),
        ({"question_order": "1"}, "field 'question_order' should be int"),
        ({"story": "Story:\nNote:"}, "no numbered lines"),
    ],
)
def test_malformed_record_names_file_and_line(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    path = _write(tmp_path, [RECORD, {**RECORD, **change}])
    with pytest.raises(DataFormatError, match=rf"mini\.json:\d+: record 1: .*{message}"):
        load("hitom", path)


def test_missing_field(tmp_path: Path) -> None:
    bad = {k: v for k, v in RECORD.items() if k != "choices"}
    with pytest.raises(DataFormatError, match=r"mini\.json:3: record 0: missing field 'choices'"):
        load("hitom", _write(tmp_path, [bad]))


def test_unknown_benchmark(tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError, match="unknown benchmark 'hitom2'"):
        load("hitom2", _write(tmp_path, [RECORD]))


# -- scoring ---------------------------------------------------------------------------------
def test_toy_story_is_answered(tmp_path: Path) -> None:
    result = evaluate("hitom", _write(tmp_path, [RECORD]))
    (r,) = result.results
    assert r.correct and r.prediction == "green_crate" and r.supported is True
    assert r.breakdown["question_order"] == "1" and r.breakdown["label"] == "supported"


def _slice(benchmarks: Path, tmp_path: Path, samples: set[tuple[str, int]]) -> Path:
    """Every record of the stories that the given (prompting type, sample id) items tell."""
    records = json.loads(_hitom_file(benchmarks).read_text(encoding="utf-8"))["data"]
    stories = {
        clean_story(r["story"]) for r in records if (r["prompting_type"], r["sample_id"]) in samples
    }
    return _write(tmp_path, [r for r in records if clean_story(r["story"]) in stories])


def test_real_slice_scores_and_classifies(benchmarks: Path, tmp_path: Path) -> None:
    # Three stories: two told in both halves (one order-4 question whose label both halves
    # took from the generator's order-preserving chains, and one whose CoTP labels name the
    # lemon's container for the onion) and a CoTP story whose order 2-4 labels name a move
    # the inner holder did not see.
    path = _slice(benchmarks, tmp_path, {("CoTP", 292), ("CoTP", 241), ("CoTP", 742)})
    result = evaluate("hitom", path)
    assert result.n == 25 and result.answered == 25 and result.parse_coverage == 1.0
    by = result.by()
    assert {k: v["n"] for k, v in by["question_order"].items()} == {str(o): 5 for o in range(5)}
    assert by["question_order"]["0"]["accuracy"] == 1.0
    assert by["question_order"]["1"]["accuracy"] == 1.0
    classes = Counter(r.disagreement for r in result.results if not r.correct)
    assert classes == {
        "order-preserving observer chains": 2,
        "unwitnessed location": 3,
        "another object's container": 3,
    }
    assert set(classes) <= set(DISAGREEMENTS)
    assert sum(r.correct for r in result.results) == 17
    # every contradicted label is explained: the supported-label figures are perfect
    assert all(v["accuracy"] == 1.0 for v in by["question_order (supported labels)"].values())
    wrong = next(r for r in result.results if r.disagreement == "unwitnessed location")
    assert wrong.supported is False
    assert "departs from the story" in wrong.explanation[-1]
