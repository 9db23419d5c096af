"""BigToM answered from the graph: options read as propositions, changes by no actor as world
events, and who learns them by seeing their traces (issues 16, 17).

Hand-written stories and rows (none from the data set) check each mechanism; the real data
checks the text mode's figures and the attribution of every answer (graph or the stated
word-overlap fallback).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from conftest import benchmarks_dir
from hypothesis import given, settings
from hypothesis import strategies as st

from beliefgraph.adapters import evaluate
from beliefgraph.adapters.bigtom import conditions
from beliefgraph.adapters.choices import choose_by_belief, read_option, verdict
from beliefgraph.api import track
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Proposition
from beliefgraph.solvers.outcomes import RESULT_STATES, outcome_of, with_outcomes


def _graph(text: str) -> BeliefGraph:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return BeliefGraph(with_outcomes(track(text, strict=False).story))


def _held(graph: BeliefGraph, who: str) -> list[str]:
    return [
        b.proposition.render()
        for b in graph.beliefs(max_order=1, at=graph.end)
        if b.holders == (who,) and not b.proposition.negated
    ]


def _state(subject: str, value: str, negated: bool = False) -> Proposition:
    return Proposition(content_type="Contents/Physical State", subject=subject, relation="be",
                       value=value, negated=negated)  # fmt: skip


# -- options read as propositions ------------------------------------------------------------
@pytest.mark.parametrize(
    ("option", "rendered"),
    [
        ("Maya believes the tap is open.", "the tap is open"),
        ("Maya believes that the bread is stale.", "the bread is stale"),
        ("Maya believes the jar contains honey.", None),  # the grammar reads it as a clause
    ],
)
def test_an_option_reads_as_what_the_holder_believes(option: str, rendered: str | None) -> None:
    props = read_option(option)
    if rendered is None:
        assert all(p.content_type != "Epistemic" for p in props)
    else:
        assert [p.render() for p in props][:1] == [rendered]


def test_a_belief_bears_on_an_option_by_thing_attribute_and_value() -> None:
    option = _state("water tap", "open")
    assert verdict(_state("tap", "open"), option) == 1  # one thing, named two ways
    assert verdict(_state("tap", "closed"), option) == -1  # one scale holds one value
    assert verdict(_state("tap", "open", negated=True), option) == -1
    assert verdict(_state("tap", "shiny"), option) == 0  # another attribute says nothing
    assert verdict(_state("garden", "open"), option) == 0  # another thing says nothing
    # degree and direction words make another value
    assert verdict(_state("bread", "less fresh"), _state("bread", "fresh")) == -1
    assert verdict(_state("lamp", "turned on"), _state("lamp", "turned off")) == -1


def test_the_latest_belief_that_tells_the_options_apart_decides() -> None:
    graph = _graph(
        "Maya is in the garden. Maya believes the tap is closed. The tap is open. "
        "Maya sees the tap."
    )
    held = [b for b in graph.beliefs(max_order=1, at=graph.end) if b.holders == ("Maya",)]
    options = [[_state("tap", "closed")], [_state("tap", "open")]]
    chosen = choose_by_belief(held, options)
    assert chosen is not None and chosen[0] == 1
    assert chosen[1].proposition.render() == "the tap is open"
    # nothing of Maya's bears on the kettle: no choice, never a guess
    assert choose_by_belief(held, [[_state("kettle", "hot")], [_state("kettle", "cold")]]) is None


# -- changes by no actor are world events; their traces show them --------------------------
def test_a_change_by_no_actor_leaves_its_state_in_the_world_unseen() -> None:
    graph = _graph(
        "Maya closed the tap. Maya goes out. During the night, a strong wind opens the tap. "
        "Maya does not see the tap."
    )
    world = {graph.story.events[i - 1].proposition.render() for i in _narrated(graph)}
    assert "the tap is open" in world
    assert "the tap is closed" in _held(graph, "Maya")
    assert "the tap is open" not in _held(graph, "Maya")


def _narrated(graph: BeliefGraph) -> list[int]:
    return [e.id for e in graph.story.events if e.parser == "outcomes" and e.kind == "narrate"]


@pytest.mark.parametrize(
    ("percept", "learns"),
    [
        ("Maya sees the flooded flowerbed.", True),  # a thing the change acted on
        ("Maya notices the strong wind.", True),  # what brought the change about
        ("Maya notices the damage.", True),  # a noun naming the change itself: the latest
        ("Maya does not see the flooded flowerbed.", False),
        ("Maya sees a bird.", False),  # nothing the change touched
    ],
)
def test_seeing_a_trace_of_a_change_shows_its_outcomes(percept: str, learns: bool) -> None:
    graph = _graph(
        "Maya closed the tap. During the night, a strong wind opens the tap and floods the "
        f"flowerbed. {percept}"
    )
    assert ("the tap is open" in _held(graph, "Maya")) is learns
    assert ("the tap is closed" in _held(graph, "Maya")) is not learns


def test_a_pronoun_object_is_the_thing_named_before() -> None:
    got = outcome_of(
        Proposition(content_type="Action/Event", subject="storm", relation="cause",
                    value="it to become damaged"),
        "old boat",
    )  # fmt: skip
    assert got == [("old boat", "damaged")]


_CHANGES = sorted(
    (verb, state)
    for verb, state in RESULT_STATES.items()
    if " " not in verb and verb in ("open", "break", "crack", "flood", "soak", "crush", "empty")
)


@settings(max_examples=25, deadline=None)
@given(
    change=st.sampled_from(_CHANGES),
    thing=st.sampled_from(("vase", "lantern", "crate", "bucket")),
    saw=st.booleans(),
)
def test_the_holder_believes_the_outcome_exactly_when_a_trace_reached_them(
    change: tuple[str, str], thing: str, saw: bool
) -> None:
    """However a thing is changed by no actor, the world holds the new state, and the holder
    believes it iff they perceived a trace of the change; otherwise they keep the old one."""
    verb, state = change
    third = {"empty": "empties", "crush": "crushes"}.get(verb, verb + "s")
    percept = f"Ravi sees the {state} {thing}." if saw else f"Ravi does not see the {thing}."
    graph = _graph(
        f"Ravi is in the yard. Ravi believes the {thing} is fine. During the night, a storm "
        f"{third} the {thing}. {percept}"
    )
    assert f"the {thing} is {state}" in {
        e.proposition.render() for e in graph.story.events if e.proposition is not None
    }
    assert (f"the {thing} is {state}" in _held(graph, "Ravi")) is saw


# -- the BigToM adapter --------------------------------------------------------------------
_ROW = (
    "Maya is a gardener in a small town. Maya wants to water her roses. Maya closed the tap "
    "this morning. Maya believes the tap is closed. During the night, a strong wind opens the "
    "tap and floods the flowerbed.;Maya sees the flooded flowerbed.;Maya does not see the "
    "flooded flowerbed.;Maya asks her neighbour to close the tap.;Maya opens the tap to water "
    "her roses.;Does Maya believe the tap is open or closed?;Does Maya want to water her "
    "roses?;What will Maya do?;Maya believes the tap is open.;Maya wants to water her roses.;"
    "Maya will ask her neighbour to close the tap.;Maya believes the tap is closed.;Maya wants "
    "to water her roses.;Maya will open the tap to water her roses.;A cat walks by.;Maya sees "
    "the cat.;Maya does not see the cat.;user;0"
)


@pytest.mark.parametrize("shown", [0, 1])
def test_true_and_false_belief_differ_where_the_story_differs(shown: int) -> None:
    from beliefgraph.adapters.bigtom import _text_answer, _text_build

    items = {i.id.rsplit(":", 1)[1]: i for i in conditions(_ROW.split(";"))}
    for variable in ("forward_belief", "forward_action"):
        for condition in ("true_belief", "false_belief"):
            item = items[f"{shown}_{variable}_{condition}"]
            result = _text_answer(item, _text_build(item))
            assert result.prediction == item.answer, (item.id, result.explanation)
            assert result.breakdown["answered_by"] == "graph"


def _bigtom_csv() -> Path:
    path = benchmarks_dir() / "bigtom" / "data" / "bigtom" / "bigtom.csv"
    if not path.exists():
        pytest.skip(f"BigToM data not found at {path}")
    return path


def test_text_mode_says_what_each_answer_rests_on() -> None:
    """On the first 12 templates (288 items), every answer names its source, and the graph's
    keyed reading answers most items; the template parse stays exact."""
    path = _bigtom_csv()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = evaluate("bigtom", path, mode="text", rows=12)
        template = evaluate("bigtom", path, rows=12)
    assert template.accuracy == 1.0
    sources = text.by()["answered_by"]
    assert set(sources) <= {"graph", "word overlap", "none"}
    assert sum(v["n"] for v in sources.values()) == text.n == 288
    assert sources["none"]["accuracy"] == 0.0
    for r in text.results:
        if r.breakdown["answered_by"] == "word overlap":
            assert "fallback" in r.explanation[0]
    assert sources["graph"]["n"] > sources["word overlap"]["n"]
