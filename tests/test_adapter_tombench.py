"""The ToMBench adapter: loading the JSONL release, the offline False Belief path, the rest."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from beliefgraph import DataFormatError, UnknownNameError
from beliefgraph.adapters import ItemResult, evaluate, load
from beliefgraph.adapters.tombench import abilities, make_tombench, paper_figures, parse_record

FB = "False Belief Task.jsonl"

LINE = {
    "能力\nABILITY": "Belief: Location false beliefs",
    "序号\nINDEX": 1,
    "故事": "...",
    "STORY": (
        "Sally and Anne are in the room, they see a basket and a box, they find a ball in the "
        "basket, Sally leaves the room, Anne moves the ball to the box."
    ),
    "QUESTION": "After Sally returns to the room, where does Sally look for the ball?",
    "OPTION-A": "Box",
    "OPTION-B": "Basket",
    "OPTION-C": "Drawer",
    "OPTION-D": "Cabinet",
    "答案\nANSWER": "B",
}


def _data(benchmarks: Path) -> Path:
    path = benchmarks / "tombench" / "data"
    if not (path / FB).is_file():
        pytest.skip(f"{path / FB} not found")
    return path


def _write(tmp_path: Path, lines: list[str], name: str = "Mini Task.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _with(**change: object) -> str:
    return json.dumps({**LINE, **change}, ensure_ascii=False)


# -- loading ---------------------------------------------------------------------------------
def test_release_folder_loads(benchmarks: Path) -> None:
    items = load("tombench", _data(benchmarks))
    assert len(items) == 1827
    assert len({i.id for i in items}) == 1827
    assert Counter(i.meta["task"] for i in items)["False Belief Task"] == 354
    assert len({i.meta["task"] for i in items}) == 20
    two = [i for i in items if len(i.choices) == 2]  # NaN options C and D
    assert len(two) == 296 and all(i.meta["letters"] == ("A", "B") for i in two)
    assert all(i.answer in i.meta["letters"] for i in items)
    assert not any(c.startswith(("A. ", "B. ")) for i in items for c in i.choices)


def test_answer_with_trailing_dot_is_a_letter(benchmarks: Path) -> None:
    items = load("tombench", _data(benchmarks) / "Knowledge-Attention Links.jsonl")
    raw = [
        json.loads(x)
        for x in (_data(benchmarks) / "Knowledge-Attention Links.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
        if x.strip()
    ]
    assert "A. " in [r["答案\nANSWER"] for r in raw]
    assert {i.answer for i in items} <= {"A", "B", "C", "D"}


def test_one_file_ids_and_meta(benchmarks: Path) -> None:
    items = load("tombench", _data(benchmarks) / FB)
    first = items[0]
    assert first.id == "False Belief Task:1:1"
    assert first.meta["ability"] == "Belief: Location false beliefs"
    assert first.choices == ("Backpack", "Suitcase", "Storage locker", "Cabinet")
    assert first.answer == "C"


def test_nan_tokens_are_null_outside_strings_only() -> None:
    record = parse_record('{"OPTION-C": NaN, "OPTION-D": NaN, "STORY": "NaN is a word"}')
    assert record == {"OPTION-C": None, "OPTION-D": None, "STORY": "NaN is a word"}


def test_nan_options_and_dotted_answer(tmp_path: Path) -> None:
    line = _with(**{"答案\nANSWER": "A. "}).replace('"Drawer"', "NaN").replace('"Cabinet"', "NaN")
    (item,) = load("tombench", _write(tmp_path, [line]))
    assert item.choices == ("Box", "Basket") and item.answer == "A"
    # "Mini Task" names no task: the record's ability names the False Belief Task
    assert item.id == "Mini Task:1:1" and item.meta["task"] == "False Belief Task"


def test_answer_of_a_missing_option_is_malformed(tmp_path: Path) -> None:
    line = _with(**{"答案\nANSWER": "D"}).replace('"Cabinet"', "NaN")
    with pytest.raises(DataFormatError, match=r"Mini Task\.jsonl:2: the answer 'D'"):
        load("tombench", _write(tmp_path, [_with(), line]))


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    path = _write(tmp_path, [_with(), "", _with()[:-5]])
    with pytest.raises(DataFormatError, match=r"Mini Task\.jsonl:3:"):
        load("tombench", path)


def test_missing_story_is_malformed(tmp_path: Path) -> None:
    with pytest.raises(DataFormatError, match=r":1: missing or empty field 'STORY'"):
        load("tombench", _write(tmp_path, [_with(STORY="")]))


def test_missing_file_and_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(DataFormatError, match="no such file"):
        load("tombench", tmp_path / "nope.jsonl")
    with pytest.raises(DataFormatError, match=r"no ToMBench \.jsonl files"):
        load("tombench", tmp_path)


def test_unknown_benchmark(tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError, match="unknown benchmark 'tom-bench'"):
        load("tom-bench", _write(tmp_path, [_with()]))


# -- scoring ---------------------------------------------------------------------------------
def test_other_tasks_are_unanswered_without_parsing(tmp_path: Path) -> None:
    result = evaluate("tombench", _write(tmp_path, [_with()], name="Hinting Task Test.jsonl"))
    (r,) = result.results
    assert r.prediction is None and not r.correct
    assert "not answered offline" in r.explanation[0]
    assert r.breakdown == {"ability": "Belief: Location false beliefs", "task": "Hinting Task Test"}
    assert result.parse_coverage == 0.0


def test_false_belief_toy_story(tmp_path: Path) -> None:
    result = evaluate("tombench", _write(tmp_path, [_with()], name=FB))
    (r,) = result.results
    assert r.correct and r.prediction == "B"


def test_false_belief_slice(benchmarks: Path) -> None:
    # the first 12 stories (location false beliefs, first and second order)
    result = evaluate("tombench", _data(benchmarks) / FB, limit=72)
    assert result.n == 72 and result.answered == 72 and result.parse_coverage == 1.0
    assert sum(r.correct for r in result.results) == 71
    (wrong,) = [r for r in result.results if not r.correct]
    # 箱子 is "box" in the story and "Chest" in the options (the translation varies)
    assert wrong.id == "False Belief Task:72:6" and wrong.gold == "C" and wrong.prediction == "A"
    assert wrong.disagreement == "gold option not in the story"
    assert set(result.by()["ability"]) >= {"Belief: Location false beliefs"}


def _fb_lines(benchmarks: Path, *needles: str) -> list[str]:
    text = (_data(benchmarks) / FB).read_text(encoding="utf-8")
    return [x for x in text.splitlines() if any(n in x for n in needles)]


def test_translation_variants_are_read_as_the_story_words_them(
    benchmarks: Path, tmp_path: Path
) -> None:
    lines = _fb_lines(
        benchmarks,
        "after Li Lei returns to the classroom",  # trailing lead-in
        "Where does Xiaoli look for the sponge",  # Xiaoli / Xiao Li
        "After Xiao North returns to the bank, where does Xiao Red",  # Xiao Red / Xiao Hong
        "where does Xiao Wang look for the jacket",  # jacket / coat
        "where does Han Mei Mei look for the pineapple",  # storage locker / Locker
        "what does Xiao Hong expect to find inside the briefcase",  # ruler / Plate ruler
    )
    assert len(lines) == 6
    result = evaluate("tombench", _write(tmp_path, lines, name=FB))
    assert [r.correct for r in result.results] == [True] * 6
    notes = [r.explanation[0] for r in result.results]
    assert any("After Li Lei returns to the classroom, where does Youyou" in n for n in notes)
    assert any("where does Xiao Hong look for the scarf" in n for n in notes)
    assert any("where does Xiao Wang look for the coat" in n for n in notes)


# -- the paper's figures (issue 19, item 4) --------------------------------------------------------
def test_abilities_are_normalised_to_the_papers(benchmarks: Path) -> None:
    items = load("tombench", benchmarks / "tombench" / "data")
    raw = {i.meta["ability"] for i in items}
    normalised = {a for r in raw for a in abilities(r)}
    assert "Belief: Location false beliefs Belief: Second-order beliefs" in raw
    assert not any(" Belief:" in a for a in normalised)
    assert "Belief: Second-order beliefs" in normalised
    assert not any(a.startswith("Non-literal") for a in normalised)
    # 33 raw groups (the release's labels, trimmed) -> 32 abilities: the two double labels
    # split into their parts, the two spellings of "Non-Literal Communication" joined.
    assert (len(raw), len(normalised)) == (33, 32)


def _result(task: str, line: int, index: int, ability: str, correct: bool) -> ItemResult:
    return ItemResult(
        id=f"{task}:{line}:{index}",
        gold="A",
        prediction="A" if correct else "B",
        correct=correct,
        breakdown={"task": task, "ability": ability},
    )


def test_task_ability_and_coherent_figures_by_hand() -> None:
    so = "Belief: Location false beliefs Belief: Second-order beliefs"
    results = [
        # task T: story at line 1 (2 questions, both right), story at line 3 (1 of 2 right)
        _result("T", 1, 1, "Belief: Location false beliefs", True),
        _result("T", 2, 2, so, True),
        _result("T", 3, 1, so, False),
        _result("T", 4, 2, "Belief: Location false beliefs", True),
        # task U: one story, one question, wrong
        _result("U", 1, 1, "Non-literal communication: Humor ", False),
    ]
    got = paper_figures(results)
    assert got["task/T"] == 0.75 and got["task/U"] == 0.0
    assert got["task_average"] == 0.375  # the mean of tasks, not of the 5 items (0.6)
    assert got["ability/Belief: Second-order beliefs"] == 0.5
    assert got["ability/Belief: Location false beliefs"] == 0.75  # 3 of 4 (doubles count)
    assert got["ability/Non-Literal Communication: Humor"] == 0.0
    assert got["ability_average"] == pytest.approx((0.5 + 0.75 + 0.0) / 3)
    assert got["coherent/T"] == 0.5 and got["coherent"] == pytest.approx(1 / 3)
    metrics = make_tombench().metrics
    assert set(metrics) == {"task_average", "ability_average", "coherent"}
    assert metrics["task_average"](results) == 0.375


def test_knows_where_is_read_as_tombench_words_its_options(tmp_path: Path) -> None:
    """A yes/no "Does X know where T is?" names "Does not know" or the "Knows, in R" option
    with T's real place; the comma-spliced "X returns to R, does X know ...?" is read with its
    "After" (Percepts-Knowledge Links, answered offline)."""
    story = (
        "Xiao Ming and Xiao Li are wandering in the bank, they see a handbag and a box, they "
        "find chalk in the handbag, Xiao Li leaves the bank, Xiao Ming moves the chalk to the box."
    )
    options = ["Does not know", "Knows, in the handbag", "Knows, in the Tote Bags",
               "Knows, in the box"]  # fmt: skip
    records = [
        _with(STORY=story, QUESTION=f"{who} returns to the bank, does {who} know where the chalk "
              "is now?", **{f"OPTION-{x}": o for x, o in zip("ABCD", options, strict=True)},
              **{"答案\nANSWER": gold})
        for who, gold in (("Xiao Li", "A"), ("Xiao Ming", "D"))
    ]  # fmt: skip
    result = evaluate("tombench", _write(tmp_path, records, name="Percepts-Knowledge Links.jsonl"))
    assert [r.prediction for r in result.results] == ["A", "D"], [
        r.explanation for r in result.results
    ]
    assert "'yes', and the chalk is in the box" in result.results[1].explanation[-1]


# -- the task of a record in a renamed file (QA report 21:38) ---------------------------------
def test_a_renamed_file_takes_the_task_from_the_records_ability(tmp_path: Path) -> None:
    result = evaluate("tombench", _write(tmp_path, [_with()], name="cut.jsonl"))
    (r,) = result.results
    assert r.breakdown["task"] == "False Belief Task"
    assert r.correct and r.prediction == "B"


def test_a_records_own_task_field_comes_first(tmp_path: Path) -> None:
    path = _write(tmp_path, [_with(TASK="Hinting Task Test")], name="cut.jsonl")
    (item,) = load("tombench", path)
    assert item.meta["task"] == "Hinting Task Test"


@pytest.mark.parametrize("ability", ["Intention: Intentions explanations", "Something new: x"])
def test_an_ability_of_no_single_task_falls_back_to_the_file_name(
    ability: str, tmp_path: Path
) -> None:
    (item,) = load("tombench", _write(tmp_path, [_with(**{"能力\nABILITY": ability})], "cut.jsonl"))
    assert item.meta["task"] == "cut"


def test_every_release_record_keeps_its_files_task(benchmarks: Path) -> None:
    items = load("tombench", _data(benchmarks))
    assert all(i.meta["task"] == Path(i.meta["file"]).stem for i in items)
