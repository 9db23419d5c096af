"""The BigToM adapter: building the conditions, the template parse, and scoring."""

from __future__ import annotations

import csv
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from beliefgraph import DataFormatError
from beliefgraph.adapters import ItemResult, get_benchmark, load
from beliefgraph.adapters.bigtom import (
    CONDITIONS,
    FIELDS,
    VARIABLES,
    conditions,
    tb_and_fb,
    template_story,
)

ROW = [
    "Ann is in the kitchen. Ann wants warm tea. Ann made tea. Ann believes the tea is hot. "
    "The tea cools down.",
    "Ann touches the cup.",
    "Ann does not touch the cup.",
    "Ann reheats the tea.",
    "Ann drinks the tea.",
    "Does Ann believe the tea is hot or cold?",
    "Does Ann want warm tea?",
    "What will Ann do?",
    "Ann believes the tea is cold.",
    "Ann wants warm tea.",
    "Ann will reheat the tea.",
    "Ann believes the tea is hot.",
    "Ann wants warm tea.",
    "Ann will drink the tea.",
    "A bird sings.",
    "Ann hears the bird.",
    "Ann does not hear the bird.",
    "auto",
    "0",
]


def _write(tmp_path: Path, rows: list[list[str]], name: str = "mini.csv") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(";".join(r) for r in rows) + "\n", encoding="utf-8")
    return path


def _run(items: list) -> list[ItemResult]:
    bench = get_benchmark("bigtom")
    return [bench.answer(item, bench.build(item)) for item in items]


def _csv(benchmarks: Path) -> Path:
    path = benchmarks / "bigtom" / "data" / "bigtom" / "bigtom.csv"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    return path


# -- loading ----------------------------------------------------------------------------------
def test_release_loads_24_conditions_per_template(benchmarks: Path) -> None:
    path = _csv(benchmarks)
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh, delimiter=";"))
    assert {len(r) for r in rows} == {len(FIELDS)} and not any('"' in f for r in rows for f in r)
    items = load("bigtom", path)
    assert len(items) == 24 * len(rows) == 3168
    cells = Counter((i.meta["variable"], i.meta["condition"]) for i in items)
    assert set(cells) == {(v, c) for v in VARIABLES for c in CONDITIONS}
    assert set(cells.values()) == {2 * len(rows)}
    first = items[0]
    assert first.id == "bigtom:1:0_forward_belief_true_belief"
    assert first.meta["agent"] == "Zara" and first.meta["fields"]["source"] == "auto"
    assert first.answer == first.choices[0] == rows[0][8]


def test_condition_texts_follow_the_release_generator() -> None:
    items = {i.id.split(":")[-1]: i for i in conditions(ROW)}
    story = "Ann is in the kitchen. Ann wants warm tea. Ann made tea."
    assert items["0_forward_belief_true_belief"].story == (
        f"{story} The tea cools down. Ann touches the cup."
    )
    assert items["1_forward_action_false_belief"].story == (
        f"{story} Ann believes the tea is hot. The tea cools down. Ann does not touch the cup."
    )
    assert items["1_forward_belief_true_control"].story == (
        f"{story} Ann believes the tea is hot. A bird sings. Ann hears the bird."
    )
    assert items["0_backward_belief_true_belief"].story == (
        f"{story} The tea cools down. Ann reheats the tea."
    )
    assert (
        items["0_backward_belief_true_control"].story
        == f"{story} A bird sings. Ann drinks the tea."
    )
    action = items["0_forward_action_true_belief"]
    assert action.question == "What will Ann do?"
    assert action.choices == ("Ann will reheat the tea.", "Ann will drink the tea.")
    for tag, item in items.items():
        expected = 0 if tag.endswith("_true_belief") else 1
        assert item.answer == item.choices[expected], tag


def test_missing_and_malformed_rows_name_the_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(DataFormatError, match="no such file"):
        load("bigtom", tmp_path / "absent.csv")
    with pytest.raises(DataFormatError, match=r"no BigToM \.csv files"):
        load("bigtom", tmp_path)
    short = _write(tmp_path, [ROW, ROW[:18]])
    with pytest.raises(
        DataFormatError, match=r"mini\.csv:2: expected 19 ';'-separated fields, got 18"
    ):
        load("bigtom", short)
    empty = _write(tmp_path, [[*ROW[:5], "", *ROW[6:]]], name="empty.csv")
    with pytest.raises(
        DataFormatError, match=r"empty\.csv:1: empty field\(s\) \['belief_question'\]"
    ):
        load("bigtom", empty)
    one_sentence = _write(tmp_path, [["Ann is here.", *ROW[1:]]], name="short.csv")
    with pytest.raises(DataFormatError, match=r"short\.csv:1: the context must have five"):
        load("bigtom", one_sentence)
    # "Ann thinks so." is a belief answer now ("thinks" is one of the forms read); a
    # sentence that names no belief still is not.
    odd = _write(tmp_path, [[*ROW[:8], "The tea is lovely.", *ROW[9:]]], name="odd.csv")
    with pytest.raises(DataFormatError, match=r"odd\.csv:1: field belief_answer_aware"):
        load("bigtom", odd)


# -- the template parse -------------------------------------------------------------------------
def test_template_parse_encodes_event_and_percept() -> None:
    items = {i.id.split(":")[-1]: i for i in conditions(ROW)}
    tb = template_story(items["1_forward_belief_true_belief"])
    assert tb.parser == "bigtom-template" and not tb.unparsed
    assert [(e.kind, e.perceivers, e.sentence_index) for e in tb.events] == [
        ("narrate", ("Ann",), 3),  # the stated initial belief
        ("narrate", (), 4),  # the causal event, unseen
        ("narrate", (), 4),
        ("observe", ("Ann",), 5),  # the percept
        ("observe", ("Ann",), 5),
    ]
    fb = template_story(items["0_forward_belief_false_belief"])
    assert [e.sentence_index for e in fb.events] == [2, 3, 3]  # hidden belief: sentence 3
    control = template_story(items["0_forward_belief_true_control"])
    assert [e.proposition.content_type for e in control.events] == [
        "Contents/Physical State",
        "Action/Event",
        "Action/Event",
    ]


def test_every_condition_of_the_example_is_answered() -> None:
    results = _run(conditions(ROW))
    assert all(r.correct for r in results)
    by_id = {r.id.split(":")[-1]: r for r in results}
    back = by_id["1_backward_belief_true_belief"]
    assert back.explanation[0].startswith('Ann\'s action ("Ann reheats the tea.") is the one')
    assert by_id["1_forward_action_false_belief"].explanation[-1] == (
        "Ann acts on that belief: Ann will drink the tea."
    )
    assert by_id["0_forward_belief_true_control"].breakdown["cell"] == (
        "forward_belief/true_control"
    )


def test_real_slice_scores_every_cell(benchmarks: Path) -> None:
    items = [i for i in load("bigtom", _csv(benchmarks)) if i.meta["line"] <= 20]
    results = _run(items)
    cells: dict[str, list[bool]] = defaultdict(list)
    for r in results:
        cells[r.breakdown["cell"]].append(r.correct)
    assert len(cells) == 12
    assert {k: (sum(v), len(v)) for k, v in cells.items()} == {k: (40, 40) for k in cells}


# -- the paper's figures (issue 19, item 6) --------------------------------------------------------
def test_paired_tb_and_fb_and_the_24_cells() -> None:
    results = _run(conditions(ROW))
    assert len({r.breakdown["paper_cell"] for r in results}) == 24
    assert len({r.breakdown["cell"] for r in results}) == 12  # ours: initial belief merged
    metrics = get_benchmark("bigtom").metrics
    assert metrics["tb_and_fb"](results) == 1.0
    # Spoil one false-belief item: its pair fails, the others stand (6 pairs per row).
    spoiled = [
        r.model_copy(update={"correct": False})
        if r.id.endswith(":1_forward_action_false_belief")
        else r
        for r in results
    ]
    assert tb_and_fb(spoiled) == pytest.approx(5 / 6)
    assert metrics["tb_and_fb/shown/forward_action"](spoiled) == 0.0
    assert metrics["tb_and_fb/hidden/forward_action"](spoiled) == 1.0
    # Accuracy over the same items is 23/24: the paired score is the stricter figure.
    assert sum(r.correct for r in spoiled) == 23


# -- text mode: the answer is read off the agent's beliefs about the state of the world ----------
def _graph_of(*props: tuple[str, str, str, str]) -> object:
    """A story whose narrated facts Ann perceives: (content type, subject, relation, value)."""
    from beliefgraph.graph import BeliefGraph
    from beliefgraph.models import Event, ParsedStory, Proposition, Sentence

    events = tuple(
        Event(id=k + 1, kind="narrate", sentence=f"s{k}", sentence_index=k, perceivers=("Ann",),
              proposition=Proposition(content_type=t, subject=s, relation=r, value=v))
        for k, (t, s, r, v) in enumerate(props)
    )  # fmt: skip
    sentences = tuple(Sentence(index=k, text=f"s{k}", events=(k + 1,)) for k in range(len(props)))
    story = ParsedStory(text=" ".join(e.sentence for e in events), sentences=sentences,
                        events=events, actors=("Ann",), parser="test")  # fmt: skip
    return BeliefGraph(story)


def test_text_mode_reads_beliefs_about_the_state_before_plans() -> None:
    # Ann plans something cold (a desire) but believes the tea is hot (a state): the belief
    # answer is the state's, although both share as many words with an option.
    item = conditions(ROW)[1]  # initial belief hidden, false belief: gold "... hot."
    bench = get_benchmark("bigtom", mode="text")
    graph = _graph_of(
        ("Desire/Intention", "Ann", "want", "the tea cold"),
        ("Contents/Physical State", "the tea", "is", "hot"),
    )
    result = bench.answer(item, graph)  # type: ignore[arg-type]
    assert result.prediction == "Ann believes the tea is hot."
    assert result.correct
    # Only when no belief about the state decides are the others read.
    only_plan = _graph_of(("Desire/Intention", "Ann", "want", "the tea cold"))
    assert bench.answer(item, only_plan).prediction == "Ann believes the tea is cold."  # type: ignore[arg-type]
