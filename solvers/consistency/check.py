"""``check``: encode a graph, run the first pass, and name each minimal conflict in English."""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from beliefgraph.errors import ConfigurationError
from beliefgraph.models import Belief
from beliefgraph.text.phrase import phrase_chain

from ..heap import gc_paused
from ..propagation import normalise_chain
from .axiom import (
    DEFAULT_AXIOMS,
    INFERENCE_EVIDENCE,
    MEMORY,
    PERCEPTION,
    TESTIMONY,
    Axiom,
    lookup,
    resolve_axioms,
)
from .encoding import Encoding
from .report import Conflict, ConsistencyReport

if TYPE_CHECKING:
    from beliefgraph.graph import BeliefGraph

__all__ = ["check", "derived_beliefs", "gc_paused"]


def check(
    graph: BeliefGraph,
    *,
    axioms: Iterable[str] | None = None,
    without: Iterable[str] = (),
    max_order: int | None = None,
    max_conflicts: int = 10,
) -> ConsistencyReport:
    """Check a belief graph's events and beliefs against the consistency axioms.

    Parameters
    ----------
    graph : BeliefGraph
        The graph; its derived beliefs up to ``max_order`` and every asserted belief are
        checked against its events.
    axioms : iterable of str, optional
        The axioms to use, short or registered names (default: all of ``DEFAULT_AXIOMS``).
    without : iterable of str
        Axioms to switch off.
    max_order : int, optional
        The deepest derived beliefs to check (default: ``graph.max_order``).
    max_conflicts : int
        Stop after this many conflicts (each found after setting the last culprit aside).

    Returns
    -------
    ConsistencyReport
        ``consistent``, and each conflict's beliefs, axioms, events and explanation.

    Raises
    ------
    ConfigurationError
        When ``max_conflicts`` or ``max_order`` is below its minimum.
    UnknownNameError
        For an axiom name that is not registered.

    Examples
    --------
    >>> from beliefgraph import BeliefGraph
    >>> from beliefgraph.models import Event, ParsedStory, Proposition
    >>> loc = Proposition(content_type="Location", subject="ball", relation="in", value="box")
    >>> events = (Event(id=1, kind="enter", actors=("Ann", "Bob"), room="hall"),
    ...           Event(id=2, kind="move", actors=("Ann",), obj="ball", destination="box",
    ...                 proposition=loc, sentence="Ann puts the ball in the box.",
    ...                 sentence_index=1),
    ...           Event(id=3, kind="exit", actors=("Ann",), room="hall", sentence_index=2))
    >>> g = BeliefGraph(ParsedStory(text="", sentences=(), events=events, actors=("Ann", "Bob")))
    >>> check(g).consistent
    True
    >>> crate = loc.model_copy(update={"value": "crate"})
    >>> g.add_belief(Belief(holders=("Bob",), proposition=crate, start=3, truth_status="False",
    ...     knowledge_access="Private", representation="Explicit", mental_source="Inference"))
    >>> report = check(g)
    >>> report.consistent, report.conflicts[0].axioms
    (False, ('unique_location', 'persistence', 'observation'))
    >>> print(report.conflicts[0].explanation)  # doctest: +NORMALIZE_WHITESPACE
    Bob believes the ball is in the crate from time 3 (asserted) cannot hold with sentence 2
    ("Ann puts the ball in the box."): a thing is in one place at a time; a belief lasts
    until its holders perceive or are told something that changes it; holders believe what an
    event they perceive shows.
    """
    if max_conflicts < 1:
        raise ConfigurationError(f"max_conflicts must be >= 1, got {max_conflicts}")
    if max_order is not None and max_order < 0:
        raise ConfigurationError(f"max_order must be >= 0, got {max_order}")
    chosen = resolve_axioms(axioms, without)
    derived = derived_beliefs(graph, max_order)
    with gc_paused():
        return _check(graph, chosen, derived, max_conflicts)


def _check(
    graph: BeliefGraph, chosen: tuple[Axiom, ...], derived: list[Belief], max_conflicts: int
) -> ConsistencyReport:
    beliefs = [*derived, *graph.asserted]
    enc = Encoding(graph, beliefs)
    n_derived = len(derived)
    report = {
        "axioms": tuple(a.name for a in chosen),
        "beliefs": len(beliefs) - len(enc.unchecked),
        "events": len(enc.events),
        "unchecked": tuple(beliefs[i] for i in enc.unchecked),
    }
    if enc.satisfiable(chosen):
        return ConsistencyReport(consistent=True, conflicts=(), **report)
    tracked = enc.build(chosen)
    # Deletion order for shrinking cores: derived beliefs go first, then events, then axioms;
    # hand-asserted beliefs are dropped last, so conflicts name them whenever they can.
    derived_names = [f"belief:{i}" for i in range(n_derived)]
    event_names = [f"event:{ev.t}" for ev in enc.events]
    axiom_names = [f"axiom:{a.name}" for a in chosen]
    asserted_names = [f"belief:{i}" for i in range(n_derived, len(beliefs))]
    conflicts: list[Conflict] = []
    set_aside: set[str] = set()
    complete = True
    # Stage one leaves the derived beliefs out: a clash between what was asserted and what the
    # story's events imply is then explained from the events themselves.
    base = [*event_names, *axiom_names, *asserted_names]
    for stage in (base, [*derived_names, *base]):
        names = [n for n in stage if n not in set_aside]
        while complete and not tracked.check(names):
            if len(conflicts) == max_conflicts:
                complete = False
                break
            core = tracked.minimal_core(names)
            conflicts.append(_conflict(enc, core))
            culprit = _culprit(core, n_derived)
            if culprit is None:  # the axioms alone clash: nothing left to set aside
                complete = False
                break
            set_aside.add(culprit)
            names.remove(culprit)
    return ConsistencyReport(
        consistent=not conflicts, conflicts=tuple(conflicts), complete=complete, **report
    )


_DERIVED: weakref.WeakKeyDictionary[Any, dict[int, tuple[Any, list[Belief]]]] = (
    weakref.WeakKeyDictionary()
)


def derived_beliefs(graph: BeliefGraph, max_order: int | None = None) -> list[Belief]:
    """The graph's derived (not asserted) beliefs up to ``max_order``, labelled once per graph.

    Labelling every belief costs more than checking them, and a graph's derived beliefs
    never change (``add_belief`` only adds asserted ones), so they are remembered for as long
    as the graph (and its propagator) lives.
    """
    order = graph.max_order if max_order is None else max_order
    memo = _DERIVED.setdefault(graph, {})
    found = memo.get(order)
    if found is None or found[0] is not graph.propagator:
        beliefs = [b for b in graph.beliefs(max_order=order) if not b.asserted]
        found = memo[order] = (graph.propagator, beliefs)
    return list(found[1])


def _culprit(core: Sequence[str], n_derived: int) -> str | None:
    """The fact to set aside to look for further conflicts: the latest asserted belief first."""
    beliefs = [n for n in core if n.startswith("belief:")]
    asserted = [n for n in beliefs if int(n.split(":")[1]) >= n_derived]
    for group in (asserted, beliefs, [n for n in core if n.startswith("event:")]):
        if group:
            return max(group, key=lambda n: int(n.split(":")[1]))
    return None


def _conflict(enc: Encoding, core: Sequence[str]) -> Conflict:
    beliefs = sorted(int(n.split(":")[1]) for n in core if n.startswith("belief:"))
    core_events = sorted(int(n.split(":")[1]) for n in core if n.startswith("event:"))
    names = {n.split(":", 1)[1] for n in core if n.startswith("axiom:")}
    order = [*DEFAULT_AXIOMS, *sorted(names - set(DEFAULT_AXIOMS))]
    axioms = tuple(a for a in order if a in names)
    events = set(core_events)
    for i in beliefs:
        events.update(t for t in enc.beliefs[i].provenance if 1 <= t <= enc.end)
    steps = enc.steps
    return Conflict(
        beliefs=tuple(enc.beliefs[i] for i in beliefs),
        axioms=axioms,
        events=tuple(sorted(events)),
        sentences=tuple(steps[t - 1].event.cite() for t in sorted(events)),
        explanation=_explanation(enc, beliefs, core_events, axioms),
    )


def _explanation(enc: Encoding, beliefs: list[int], events: list[int], axioms: tuple[str, ...]):
    """One line: the clashing beliefs, the events they cannot live with, and why."""
    because = [lookup(a).because for a in axioms]
    claims = [_describe(enc.beliefs[i]) for i in beliefs]
    sources = {a for a in axioms if a in (PERCEPTION, TESTIMONY, MEMORY)}
    if len(beliefs) == 1 and sources == set(axioms):
        b = enc.beliefs[beliefs[0]]
        who = " and ".join(normalise_chain(b.holders))
        missing = {
            PERCEPTION: f"no event at time {b.start} that {who} perceived shows it",
            TESTIMONY: f"{who} heard no telling of it at time {b.start} that could change "
            f"their belief",
            MEMORY: f"no event up to time {b.start} showed or told it to {who}",
        }[next(iter(sources))]
        return f"{claims[0]}, sourced by {b.mental_source}, but {missing}."
    if len(beliefs) == 1 and axioms == (INFERENCE_EVIDENCE,):
        b = enc.beliefs[beliefs[0]]
        seen = [enc.steps[t - 1].event.cite() for t in b.provenance if 1 <= t <= enc.end]
        return (
            f"{claims[0]}, sourced by Inference, but {b.holders[0]} perceived none of its "
            f"evidence: {' and '.join(seen)}."
        )
    cites = [enc.steps[t - 1].event.cite() for t in events]
    lead = " and ".join(claims) if claims else "The story's events"
    if cites:
        lead += " cannot hold with " + " and ".join(cites)
    elif len(claims) > 1:
        lead += " cannot both hold"
    else:
        lead += " cannot hold"
    return f"{lead}: {'; '.join(because)}." if because else f"{lead}."


def _describe(b: Belief) -> str:
    span = f"from time {b.start}" if b.end is None else f"from time {b.start} to {b.end}"
    origin = "asserted" if b.asserted else f"derived: {b.mental_source}"
    return f"{phrase_chain(b.holders)} {b.proposition.render()} {span} ({origin})"
