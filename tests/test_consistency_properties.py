"""Properties of the consistency checker over random, valid event sequences.

Propagation's graphs satisfy every axiom; one injected contradiction, or one perception
whose event is dropped, breaks them with conflicts that name exactly that piece.
"""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from story_strategies import CONTAINERS, event_sequences, location, story_of

from beliefgraph import BeliefGraph, PerceptionModel
from beliefgraph.models import Belief, Event
from beliefgraph.solvers import DEFAULT_AXIOMS, check, possible
from beliefgraph.solvers.consistency import Encoding, derived_beliefs, resolve_axioms

_SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _graphs(events: list[Event], max_order: int = 3):
    story = story_of(events)
    for open_containers in (False, True):
        yield BeliefGraph(
            story, perception=PerceptionModel(open_containers=open_containers), max_order=max_order
        )


def _names_exactly(report, piece: Belief) -> None:
    """Inconsistent, and every conflict blames the one hand-made belief."""
    assert not report.consistent
    mine = piece.model_copy(update={"asserted": True})
    for conflict in report.conflicts:
        assert conflict.asserted == (mine,), report.explain()


@_SETTINGS
@given(event_sequences())
def test_every_propagated_graph_is_consistent(events: list[Event]) -> None:
    for graph in _graphs(events):
        report = check(graph)
        assert report.consistent, report.explain()
        assert report.unchecked == ()


@_SETTINGS
@given(event_sequences(), st.data())
def test_one_injected_contradiction_is_named(events: list[Event], data: st.DataObject) -> None:
    for graph in _graphs(events):
        located = [b for b in graph.beliefs() if b.order >= 1 and b.proposition.relation == "in"]
        assume(located)
        b = data.draw(st.sampled_from(located))
        other = data.draw(st.sampled_from([c for c in CONTAINERS if c != b.proposition.value]))
        wrong = b.model_copy(
            update={"proposition": b.proposition.model_copy(update={"value": other})}
        )
        graph.add_belief(wrong)
        report = check(graph)
        _names_exactly(report, wrong)
        assert len(report.conflicts) == 1  # set aside, nothing else clashes


@_SETTINGS
@given(event_sequences(), st.data())
def test_dropping_the_event_behind_a_perception_is_named(
    events: list[Event], data: st.DataObject
) -> None:
    story = story_of(events)
    graph = BeliefGraph(story, max_order=3)
    seen = [
        b
        for b in graph.beliefs()
        if b.order == 1
        and b.mental_source == "Perception"
        and graph.events[b.start - 1].kind == "move"
    ]
    assume(seen)
    b = data.draw(st.sampled_from(seen))
    move = events[b.start - 1]
    # The move is dropped; a "stay" by the same actor keeps every later time step in place.
    kept = [
        e if e.id != move.id else Event(id=move.id, kind="stay", actors=move.actors, room=move.room)
        for e in events
    ]
    without = BeliefGraph(story_of(kept), max_order=3)
    # Without the move a later narration of the thing's new place is an unexplained change,
    # which the frame axiom rightly names; this property is about the belief's source.
    assert check(without, without=["frame"]).consistent
    without.add_belief(b)
    _names_exactly(check(without, without=["frame"]), b)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(event_sequences(max_events=10))
def test_what_propagation_believes_is_possible(events: list[Event]) -> None:
    for graph in _graphs(events, max_order=2):
        for chain in [c for c in graph.chains(2) if c]:
            for var in graph.variables:
                b = graph.belief(chain, variable=var)
                if b is not None:
                    assert b.proposition.assigned in possible(graph, chain, var)


@_SETTINGS
@given(event_sequences(), st.data())
def test_first_pass_agrees_with_the_tracked_encoding(
    events: list[Event], data: st.DataObject
) -> None:
    # ``check`` answers from an untracked first pass and builds the tracked encoding only to
    # name conflicts: both must say the same, whatever the axioms and the hand-made beliefs.
    open_containers = data.draw(st.booleans())
    graph = BeliefGraph(
        story_of(events), perception=PerceptionModel(open_containers=open_containers), max_order=2
    )
    beliefs = derived_beliefs(graph)
    for _ in range(data.draw(st.integers(0, 3))):
        b = data.draw(st.sampled_from(beliefs))
        value = data.draw(st.sampled_from([*CONTAINERS, b.proposition.value]))
        prop = b.proposition
        if prop.relation == "in":
            prop = prop.model_copy(update={"value": value})
        else:
            prop = prop.model_copy(update={"negated": data.draw(st.booleans())})
        holders = data.draw(st.sampled_from([b.holders, (*b.holders[:1], *b.holders)]))
        update = {
            "proposition": prop,
            "holders": holders,
            "start": data.draw(st.integers(0, graph.end)),
            "end": None,
            "mental_source": data.draw(
                st.sampled_from(["Perception", "Memory", "Testimony", "Inference"])
            ),
            "truth_status": data.draw(st.sampled_from(["True", "False"])),
        }
        beliefs.append(b.model_copy(update=update))
    off = data.draw(st.sets(st.sampled_from(DEFAULT_AXIOMS), max_size=3))
    chosen = resolve_axioms(without=off)
    enc = Encoding(graph, beliefs)
    tracked = enc.build(chosen)
    assert enc.satisfiable(chosen) == tracked.check(tracked.literals)


@_SETTINGS
@given(event_sequences(tells=False), st.data())
def test_a_narration_that_moves_a_thing_is_named_by_the_frame_axiom(
    events: list[Event], data: st.DataObject
) -> None:
    # A narration placing a thing somewhere else than where it was last put, with no move
    # between: the frame conflict names exactly the two lines (the put and the narration).
    placed = {e.obj: e for e in events if e.kind in ("move", "narrate") and e.obj}
    assume(placed)
    obj = data.draw(st.sampled_from(sorted(placed)))
    last = placed[obj]
    other = data.draw(st.sampled_from([c for c in CONTAINERS if c != last.destination]))
    said = Event(
        id=len(events) + 1,
        kind="narrate",
        obj=obj,
        destination=other,
        proposition=location(obj, other),
    )
    graph = BeliefGraph(story_of([*events, said]), max_order=2)
    chosen = resolve_axioms()
    enc = Encoding(graph, derived_beliefs(graph))
    assert not enc.satisfiable(chosen)
    report = check(graph)
    assert not report.consistent
    first = report.conflicts[0]
    assert "frame" in first.axioms and said.id in first.events, report.explain()
    setter = max(e.id for e in events if e.obj == obj and e.kind in ("move", "narrate"))
    assert setter in first.events, report.explain()


@_SETTINGS
@given(event_sequences(), st.data())
def test_the_laid_out_changes_are_those_read_step_by_step(
    events: list[Event], data: st.DataObject
) -> None:
    # The layout finds the events each chain perceived from per-actor bit sets; the first pass
    # and every dynamics axiom read its table. It must hold exactly what reading each step
    # directly (``_change``, the rule the table caches) gives, at every step of every picture.
    graph = BeliefGraph(
        story_of(events),
        perception=PerceptionModel(open_containers=data.draw(st.booleans())),
        max_order=3,
    )
    enc = Encoding(graph, derived_beliefs(graph))
    for chain, key in enc.dynamic_pairs():
        if not chain:
            continue
        for t in range(1, enc.end + 1):
            direct = enc._change(chain, key, t)
            assert enc.change(chain, key, t) == direct, (chain, key, t)
            if direct is not None:
                assert t in enc.points(chain, key)


def test_encodings_share_a_z3_context_without_sharing_variables() -> None:
    from beliefgraph.solvers.consistency import terms

    first, second = terms.Terms(), terms.Terms()
    assert first.ctx is second.ctx  # one context per thread: creating one costs 10-30 ms
    a, b = first.var(False), second.var(False)
    assert not terms.z3.Z3_is_eq_ast(first.ref, a, b)  # numbered across the context
    saved = terms._RETIRE_AFTER
    try:
        terms._RETIRE_AFTER = 0  # a context that kept enough terms is retired
        third = terms.Terms()
    finally:
        terms._RETIRE_AFTER = saved
    assert third.ctx is not first.ctx


def test_checks_in_one_context_give_the_verdicts_of_fresh_ones() -> None:
    # Two graphs checked one after the other share a context: the second's verdict and
    # conflicts are those it gets alone.
    from beliefgraph.solvers.consistency import terms

    events = [
        Event(id=1, kind="enter", actors=("Ann", "Bob"), room="hall"),
        Event(id=2, kind="move", actors=("Ann",), obj="ball", destination="box",
              proposition=location("ball", "box")),
        Event(id=3, kind="exit", actors=("Bob",), room="hall"),
        Event(id=4, kind="move", actors=("Ann",), obj="ball", destination="bag",
              proposition=location("ball", "bag")),
    ]  # fmt: skip
    graph = BeliefGraph(story_of(events))
    wrong = next(b for b in graph.beliefs() if b.holders == ("Bob",))
    wrong = wrong.model_copy(
        update={"proposition": wrong.proposition.model_copy(update={"value": "bag"})}
    )
    graph.add_belief(wrong)
    assert check(BeliefGraph(story_of(events))).consistent
    shared = check(graph)
    saved = terms._RETIRE_AFTER
    try:
        terms._RETIRE_AFTER = 0
        alone = check(graph)
    finally:
        terms._RETIRE_AFTER = saved
    assert not shared.consistent
    assert shared.conflicts == alone.conflicts
