"""The z3 consistency checker: one hand-made case per axiom, the report, possible(), the CLI."""

from __future__ import annotations

import json
import warnings

import pytest
from story_strategies import location, story_of
from typer.testing import CliRunner

import beliefgraph
from beliefgraph import BeliefGraph, track
from beliefgraph.errors import BeliefGraphError, ConfigurationError, UnknownNameError
from beliefgraph.models import Belief, Event, ParsedStory, Proposition
from beliefgraph.registry import axioms as axiom_registry
from beliefgraph.registry import parsers, resolve
from beliefgraph.solvers import (
    DEFAULT_AXIOMS,
    ConsistencyReport,
    InconsistencyWarning,
    InconsistentGraphError,
    check,
    possible,
    truth_status,
)

SALLY_ANNE = (
    "Sally and Anne are in the room. Sally puts the ball in the basket. Sally goes out. "
    "Anne moves the ball to the box."
)


def _sally_anne() -> BeliefGraph:
    """Sally-Anne from hand-made events (times: 1 enter, 2 put, 3 Sally out, 4 Anne moves)."""
    sentences = SALLY_ANNE.split(". ")
    events = [
        Event(id=1, kind="enter", actors=("Sally", "Anne"), room="room"),
        Event(
            id=2,
            kind="move",
            actors=("Sally",),
            obj="ball",
            destination="basket",
            proposition=location("ball", "basket"),
        ),
        Event(id=3, kind="exit", actors=("Sally",), room="room"),
        Event(
            id=4,
            kind="move",
            actors=("Anne",),
            obj="ball",
            destination="box",
            proposition=location("ball", "box"),
        ),
    ]
    events = [
        e.model_copy(update={"sentence": s.rstrip(".") + "."})
        for e, s in zip(events, sentences, strict=True)
    ]
    return BeliefGraph(story_of(events))


def _belief(holders, prop, start, end=None, *, source="Inference", truth="Unknown") -> Belief:
    return Belief(
        holders=tuple(holders),
        proposition=prop,
        start=start,
        end=end,
        truth_status=truth,
        knowledge_access="Private",
        representation="Explicit",
        mental_source=source,
    )


def _fact(negated: bool = False) -> Proposition:
    return Proposition(
        content_type="Desire/Intention",
        subject="Anne",
        relation="love",
        value="tangerine",
        negated=negated,
    )


def _only_conflict(report: ConsistencyReport):
    assert not report.consistent
    assert len(report.conflicts) == 1, report.explain()
    return report.conflicts[0]


# -- consistent stories ---------------------------------------------------------------------
def test_sally_anne_by_hand_is_consistent() -> None:
    report = check(_sally_anne())
    assert report.consistent and report.conflicts == ()
    assert report.axioms == DEFAULT_AXIOMS
    assert report.beliefs > 0 and report.events == 4
    assert report.explain().startswith("Consistent")


def test_sally_anne_text_is_consistent_through_track() -> None:
    graph = track(SALLY_ANNE, check=True)  # must not raise
    assert check(graph).consistent
    assert possible(graph, ("Sally",), "ball") == ("basket",)
    assert possible(graph, (), "ball") == ("box",)


# -- one case per axiom: inconsistent with it, consistent without it -------------------------
def test_unique_location_two_places_at_once() -> None:
    g = _sally_anne()
    g.add_belief(_belief(["Sally"], location("ball", "crate"), 1, 2))
    g.add_belief(_belief(["Sally"], location("ball", "drawer"), 1, 2))
    conflict = _only_conflict(check(g))
    assert conflict.axioms == ("unique_location",)
    assert len(conflict.asserted) == 2
    assert check(g, without=["unique_location"]).consistent


def test_unique_location_reads_contents_as_locations() -> None:
    g = _sally_anne()
    contains = Proposition(
        content_type="Contents/Physical State", subject="crate", relation="contains", value="ball"
    )
    g.add_belief(_belief(["Anne"], contains, 1, 2))
    g.add_belief(_belief(["Anne"], location("ball", "drawer"), 1, 2))
    assert _only_conflict(check(g)).axioms == ("unique_location",)
    assert check(g, without=["unique_location"]).consistent


def test_world_facts_that_clash_are_an_inconsistent_parse() -> None:
    empty = Proposition(
        content_type="Contents/Physical State",
        subject="basket",
        relation="contains",
        value="ball",
        negated=True,
    )
    events = [
        Event(id=1, kind="enter", actors=("Anne",), room="room"),
        Event(
            id=2,
            kind="move",
            actors=("Anne",),
            obj="ball",
            destination="basket",
            proposition=location("ball", "basket"),
            sentence="Anne puts the ball away.",
        ),
        Event(id=3, kind="narrate", proposition=empty, sentence="The basket is empty."),
    ]
    report = check(BeliefGraph(story_of(events)))
    assert not report.consistent
    first = report.conflicts[0]
    assert {2, 3} <= set(first.events)
    assert "unique_location" in first.axioms
    assert any("The basket is empty." in s for s in first.sentences)


@pytest.mark.parametrize("chain", [("Anne",), ("Sally", "Anne"), ("Anne", "Sally", "Anne")])
def test_no_contradiction_at_any_order(chain) -> None:
    g = _sally_anne()
    g.add_belief(_belief(chain, _fact(), 1))
    g.add_belief(_belief(chain, _fact(negated=True), 3, 4))
    conflict = _only_conflict(check(g))
    assert conflict.axioms == ("no_contradiction",)
    assert {b.start for b in conflict.beliefs} == {1, 3}
    assert check(g, without=["no_contradiction"]).consistent


def test_no_contradiction_for_a_negated_location() -> None:
    g = _sally_anne()
    not_there = Proposition(
        content_type="Location", subject="ball", relation="in", value="basket", negated=True
    )
    g.add_belief(_belief(["Sally"], not_there, 3))
    conflict = _only_conflict(check(g))
    assert "no_contradiction" in conflict.axioms
    assert conflict.asserted[0].proposition == not_there


def test_knowledge_is_factive() -> None:
    g = _sally_anne()
    # Sally saw the ball put in the basket (event 2) and left; it was moved at 4.
    g.add_belief(
        _belief(["Sally"], location("ball", "basket"), 2, source="Perception", truth="True")
    )
    conflict = _only_conflict(check(g))
    assert conflict.axioms == ("unique_location", "factive")
    assert 4 in conflict.events
    assert check(g, without=["factive"]).consistent


def test_a_perception_labelled_false_is_not_knowledge() -> None:
    g = _sally_anne()
    g.add_belief(
        _belief(["Sally"], location("ball", "basket"), 2, source="Perception", truth="False")
    )
    assert check(g).consistent


def test_introspection() -> None:
    g = _sally_anne()
    g.add_belief(_belief(["Anne", "Anne"], location("ball", "box"), 4))
    assert check(g).consistent  # Anne believes she believes what she believes
    g.add_belief(_belief(["Anne", "Anne"], location("ball", "crate"), 3, 4))
    conflict = _only_conflict(check(g))
    assert "introspection" in conflict.axioms
    assert check(g, without=["introspection"]).consistent


def test_perception_needs_an_event_that_shows_it() -> None:
    g = _sally_anne()
    g.add_belief(_belief(["Sally"], location("ball", "basket"), 3, source="Perception"))
    conflict = _only_conflict(check(g))
    assert conflict.axioms == ("perception_source",)
    assert "no event at time 3 that Sally perceived shows it" in conflict.explanation
    assert check(g, without=["perception_source"]).consistent


def test_testimony_needs_a_telling_the_holder_heard() -> None:
    g = _sally_anne()
    g.add_belief(_belief(["Sally"], location("ball", "basket"), 3, source="Testimony"))
    assert _only_conflict(check(g)).axioms == ("testimony_source",)
    assert check(g, without=["testimony_source"]).consistent


def test_memory_needs_an_earlier_perception() -> None:
    g = _sally_anne()
    g.add_belief(_belief(["Anne"], location("ball", "basket"), 3, 4, source="Memory"))
    assert check(g).consistent  # she saw it at 2
    g.add_belief(_belief(["Anne"], location("ball", "basket"), 1, 2, source="Memory"))
    assert _only_conflict(check(g)).axioms == ("memory_source",)
    assert check(g, without=["memory_source"]).consistent


def test_persistence_nothing_perceived_nothing_changes() -> None:
    g = _sally_anne()
    # Checked to order 1, so the hand-made second-order belief has no derived rival.
    g.add_belief(_belief(["Anne", "Sally"], location("ball", "box"), 3))
    conflict = _only_conflict(check(g, max_order=1))
    assert "persistence" in conflict.axioms
    assert conflict.asserted[0].holders == ("Anne", "Sally")
    assert check(g, max_order=1, without=["persistence"]).consistent


def test_observation_holders_believe_what_they_see() -> None:
    g = _sally_anne()
    g.add_belief(_belief(["Anne", "Sally"], location("ball", "crate"), 2, 3))
    conflict = _only_conflict(check(g, max_order=1))
    assert conflict.axioms == ("unique_location", "observation")
    assert conflict.events == (2,)
    assert check(g, max_order=1, without=["observation"]).consistent


def test_a_lie_does_not_change_the_speakers_belief() -> None:
    events = [
        Event(id=1, kind="enter", actors=("Anne",), room="room"),
        Event(
            id=2,
            kind="move",
            actors=("Anne",),
            obj="ball",
            destination="basket",
            proposition=location("ball", "basket"),
        ),
        Event(id=3, kind="enter", actors=("Bob",), room="room"),
        Event(
            id=4,
            kind="tell",
            actors=("Anne",),
            hearers=("Bob",),
            obj="ball",
            proposition=location("ball", "box"),
            sentence="Anne tells Bob it is in the box.",
        ),
    ]
    g = BeliefGraph(story_of(events))
    assert check(g).consistent
    assert g.belief(("Anne",), obj="ball").proposition.value == "basket"
    told = g.belief(("Bob",), obj="ball")
    assert told.proposition.value == "box" and told.context == "Deceptive"
    # Had the lie changed Anne's own mind, the graph would break persistence.
    lie = _belief(["Anne"], location("ball", "box"), 4, source="Testimony")
    g.add_belief(lie)
    report = check(g)
    assert not report.consistent
    assert all(c.asserted == (lie.model_copy(update={"asserted": True}),) for c in report.conflicts)
    assert {a for c in report.conflicts for a in c.axioms} & {"persistence", "testimony_source"}


# -- the report -----------------------------------------------------------------------------
def test_report_explains_each_conflict_in_one_line() -> None:
    g = _sally_anne()
    g.add_belief(_belief(["Anne"], location("ball", "crate"), 3, 4))
    report = check(g)
    conflict = _only_conflict(report)
    assert "\n" not in conflict.explanation
    assert conflict.explanation.startswith("Anne believes the ball is in the crate from time 3")
    assert 'sentence 2 ("Sally puts the ball in the basket.")' in conflict.explanation
    assert conflict.sentences == ('sentence 2 ("Sally puts the ball in the basket.")',)
    text = report.explain()
    assert text.startswith("Inconsistent: 1 conflict(s).")
    assert conflict.explanation in text
    assert str(conflict) == conflict.explanation


def test_conflicts_are_listed_one_culprit_at_a_time() -> None:
    g = _sally_anne()
    g.add_belief(_belief(["Sally"], location("ball", "crate"), 3))
    g.add_belief(_belief(["Anne"], location("ball", "drawer"), 4))
    report = check(g)
    assert len(report.conflicts) == 2
    assert all(len(c.asserted) == 1 for c in report.conflicts)
    assert {c.asserted[0].proposition.value for c in report.conflicts} == {"crate", "drawer"}
    capped = check(g, max_conflicts=1)
    assert len(capped.conflicts) == 1 and not capped.complete


def test_epistemic_content_is_an_opaque_fact_and_valueless_beliefs_are_unchecked() -> None:
    g = _sally_anne()
    thinks = Proposition(
        content_type="Epistemic",
        subject="Sally",
        relation="think",
        holder="Sally",
        about=location("ball", "box"),
    )
    g.add_belief(_belief(["Anne"], thinks, 2))
    assert check(g).consistent
    g.add_belief(_belief(["Anne"], thinks.model_copy(update={"negated": True}), 3))
    assert _only_conflict(check(g)).axioms == ("no_contradiction",)
    nowhere = _belief(
        ["Anne"], Proposition(content_type="Location", subject="ball", relation="in"), 2
    )
    g = _sally_anne()
    g.add_belief(nowhere)
    report = check(g)
    assert report.consistent
    assert report.unchecked == (nowhere.model_copy(update={"asserted": True}),)


def test_report_round_trips_through_json() -> None:
    g = _sally_anne()
    g.add_belief(_belief(["Anne"], location("ball", "crate"), 3))
    report = check(g)
    again = ConsistencyReport.model_validate_json(report.model_dump_json())
    assert again == report


def test_check_rejects_bad_settings() -> None:
    g = _sally_anne()
    with pytest.raises(ConfigurationError, match="max_conflicts"):
        check(g, max_conflicts=0)
    with pytest.raises(ConfigurationError, match="max_order"):
        check(g, max_order=-1)
    with pytest.raises(UnknownNameError, match="no_such_rule"):
        check(g, without=["no_such_rule"])


def test_every_axiom_is_registered_under_a_versioned_name() -> None:
    for name in DEFAULT_AXIOMS:
        axiom = resolve(axiom_registry, f"beliefgraph.axiom.{name}.v1", "axiom")()
        assert axiom.name == name and axiom.rule and axiom.because
    assert check(_sally_anne(), axioms=["beliefgraph.axiom.persistence.v1"]).axioms == (
        "persistence",
    )


def test_top_level_exports() -> None:
    assert beliefgraph.check is check
    assert beliefgraph.ConsistencyReport is ConsistencyReport


# -- possible values and truth from the solver ------------------------------------------------
def _box_story() -> BeliefGraph:
    """Anne puts the cup in the box while Bob is away; Bob comes in afterwards."""
    cup = Proposition(content_type="Location", subject="cup", relation="in", value="box")
    events = [
        Event(id=1, kind="enter", actors=("Anne",), room="room"),
        Event(id=2, kind="move", actors=("Anne",), obj="cup", destination="box", proposition=cup),
        Event(id=3, kind="enter", actors=("Bob",), room="room"),
        Event(
            id=4,
            kind="move",
            actors=("Bob",),
            obj="ball",
            destination="basket",
            proposition=location("ball", "basket"),
        ),
    ]
    return BeliefGraph(story_of(events))


def test_possible_follows_what_each_chain_saw() -> None:
    g = _sally_anne()
    assert possible(g, ("Sally",), "ball") == ("basket",)
    assert possible(g, ("Anne", "Sally"), ("ball", "in")) == ("basket",)
    assert possible(g, (), "ball") == ("box",)
    assert possible(g, (), "ball", at=0) == ("basket", "box", None)  # nothing said yet
    assert possible(g, ("Anne", "Anne"), "ball") == ("box",)  # introspection


def test_possible_contents_of_a_box_never_seen_opened() -> None:
    g = _box_story()
    assert possible(g, ("Anne",), ("box", "contains")) == ("cup",)
    # Bob never saw the box filled: as far as he knows it could hold anything...
    assert possible(g, ("Bob",), ("box", "contains"), at=3) == ("ball", "cup", None)
    # ... but the ball, which he saw go into the basket.
    assert possible(g, ("Bob",), ("box", "contains")) == ("cup", None)
    assert possible(g, ("Bob",), "ball") == ("basket",)


def test_possible_yes_no_fact() -> None:
    g = _sally_anne()
    assert possible(g, ("Anne",), ("Anne", "love", "tangerine")) == (False, True)
    g.add_belief(_belief(["Anne"], _fact(), 1))
    assert possible(g, ("Anne",), ("Anne", "love", "tangerine")) == (True,)


def test_truth_status_comes_from_the_solver() -> None:
    g = _sally_anne()
    assert truth_status(g, g.belief(("Sally",), obj="ball")) == "False"
    assert truth_status(g, g.belief(("Anne", "Sally"), obj="ball")) == "True"
    b = _box_story()
    guess = _belief(
        ["Anne", "Bob"],
        Proposition(content_type="Location", subject="cup", relation="in", value="box"),
        4,
    )
    assert truth_status(b, guess) == "Unknown"  # Bob never saw where the cup went


def test_possible_rejects_bad_queries() -> None:
    g = _sally_anne()
    with pytest.raises(BeliefGraphError, match="Zed"):
        possible(g, ("Zed",), "ball")
    with pytest.raises(ConfigurationError, match="outside the story"):
        possible(g, ("Anne",), "ball", at=9)
    with pytest.raises(ConfigurationError, match="unknown variable"):
        possible(g, ("Anne",), ("ball",))
    g.add_belief(_belief(["Anne"], location("ball", "crate"), 3))
    with pytest.raises(InconsistentGraphError) as err:
        possible(g, ("Anne",), "ball")
    assert not err.value.report.consistent


# -- track(check=...) ------------------------------------------------------------------------
class _ClashingParser:
    """A stand-in parser whose story narrates a fact the events contradict."""

    def __init__(self, **settings: object) -> None:
        pass

    def parse(self, text: str) -> ParsedStory:
        empty = Proposition(
            content_type="Contents/Physical State",
            subject="basket",
            relation="contains",
            value="ball",
            negated=True,
        )
        return story_of(
            [
                Event(id=1, kind="enter", actors=("Anne",), room="room"),
                Event(
                    id=2,
                    kind="move",
                    actors=("Anne",),
                    obj="ball",
                    destination="basket",
                    proposition=location("ball", "basket"),
                ),
                Event(id=3, kind="narrate", proposition=empty),
            ]
        )


@pytest.fixture
def clashing_parser():
    parsers.register("test.clashing_parser.v1", func=_ClashingParser)
    yield "test.clashing_parser.v1"


def test_track_check_raises_or_warns(clashing_parser) -> None:
    assert track("", parser=clashing_parser).end == 3  # unchecked by default
    with pytest.raises(InconsistentGraphError) as err:
        track("", parser=clashing_parser, check=True)
    assert str(err.value) == err.value.report.explain()
    with pytest.warns(InconsistencyWarning, match="Inconsistent"):
        graph = track("", parser=clashing_parser, check="warn")
    assert graph.end == 3
    with pytest.raises(ConfigurationError, match="check must be"):
        track("", parser=clashing_parser, check="maybe")


def test_track_check_is_quiet_on_a_consistent_story() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        track(SALLY_ANNE, check="warn")


# -- the CLI ---------------------------------------------------------------------------------
runner = CliRunner()


def _app():
    from beliefgraph.cli.main import app

    return app


def test_cli_check_graph_json(tmp_path) -> None:
    g = _sally_anne()
    path = tmp_path / "graph.json"
    path.write_text(g.to_json(), encoding="utf-8")
    ok = runner.invoke(_app(), ["check", str(path)])
    assert ok.exit_code == 0, ok.output
    assert "Consistent" in ok.output

    g.add_belief(_belief(["Anne"], location("ball", "crate"), 3))
    path.write_text(g.to_json(), encoding="utf-8")
    bad = runner.invoke(_app(), ["check", str(path)])
    assert bad.exit_code == 1
    assert "inconsistent" in bad.output and "crate" in bad.output
    assert json.loads(path.read_text())["asserted"]
    relaxed = ["check", str(path), "-x", "unique_location"]
    assert runner.invoke(_app(), relaxed).exit_code == 0


def test_cli_check_story_text(tmp_path) -> None:
    path = tmp_path / "story.txt"
    path.write_text(SALLY_ANNE, encoding="utf-8")
    result = runner.invoke(_app(), ["check", str(path)])
    assert result.exit_code == 0, result.output
    assert "Consistent" in result.output


def test_cli_check_reports_errors_in_one_line(tmp_path) -> None:
    result = runner.invoke(_app(), ["check", str(tmp_path / "missing.txt")])
    assert result.exit_code == 1
    path = tmp_path / "graph.json"
    path.write_text(_sally_anne().to_json(), encoding="utf-8")
    result = runner.invoke(_app(), ["check", str(path), "-x", "gravity"])
    assert result.exit_code == 1 and "unknown axiom 'gravity'" in result.output
