"""What a holder chain's picture could be: every value consistent with the graph, from z3.

``possible`` asks the consistency encoding (``beliefgraph.solvers.consistency``) which values a
chain's picture of a variable can take at a time, given every event, every belief and the
axioms; it enumerates them with blocking clauses. A chain that never perceived anything about
the variable keeps it open ("Bob never saw the box opened, so it could hold anything");
``truth_status`` then reads a belief's truth off what its reference (reality, or the next
holder in) can be, so Unknown is a finding of the solver, not a default.

Values are the story's names; ``None`` stands for "none of them" (a place, or contents, the
story never names). Limits: the enumeration is over the names the story and the beliefs
mention; a variable of Epistemic content is an opaque yes/no fact. A question about a place
nothing names ("is the ball in the piano?", a parser's implied belief) is answered as one of
those unnamed places: no where the picture is settled on a named one, open where it is open.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from beliefgraph.errors import BeliefGraphError, ConfigurationError
from beliefgraph.models import Belief, TruthStatus

from .consistency import (
    Encoding,
    InconsistentGraphError,
    check,
    derived_beliefs,
    gc_paused,
    key_test,
    resolve_axioms,
    var_test,
)

if TYPE_CHECKING:
    from beliefgraph.graph import BeliefGraph

    from .perception import Value, Variable

__all__ = ["possible", "truth_status"]


def possible(
    graph: BeliefGraph,
    chain: Iterable[str] | str,
    variable: Variable | str,
    *,
    at: int | None = None,
    axioms: Iterable[str] | None = None,
    without: Iterable[str] = (),
    max_order: int | None = None,
) -> tuple[Value | None, ...]:
    """Every value ``chain``'s picture of ``variable`` can take at ``at``, given the graph.

    Parameters
    ----------
    graph : BeliefGraph
        The graph; its events, derived beliefs (up to ``max_order``) and asserted beliefs.
    chain : iterable of str or str
        The holder chain, outermost first; ``()`` asks about reality.
    variable : tuple or str
        A proposition's variable: ``(obj, "in")`` (an object name alone means this),
        ``(container, "contains")``, or a yes/no fact ``(subject, relation, value)``.
    at : int, optional
        The time step (default: the story's end).
    axioms, without : iterable of str
        The axioms to assume, as for ``check``.
    max_order : int, optional
        The deepest derived beliefs to take into account (default: ``graph.max_order``).

    Returns
    -------
    tuple
        The possible values, sorted; ``None`` last, meaning "none the story names". A
        location gives places, contents give objects, a yes/no fact gives booleans.

    Raises
    ------
    BeliefGraphError
        For an actor the story does not have.
    ConfigurationError
        For a time outside the story or a variable of an unknown shape.
    InconsistentGraphError
        When the graph is inconsistent (nothing is possible); its ``report`` says why.

    Examples
    --------
    >>> from beliefgraph import BeliefGraph
    >>> from beliefgraph.models import Event, ParsedStory, Proposition
    >>> loc = Proposition(content_type="Location", subject="ball", relation="in", value="box")
    >>> events = (Event(id=1, kind="enter", actors=("Ann", "Bob"), room="hall"),
    ...           Event(id=2, kind="exit", actors=("Bob",), room="hall"),
    ...           Event(id=3, kind="move", actors=("Ann",), obj="ball", destination="box",
    ...                 proposition=loc))
    >>> g = BeliefGraph(ParsedStory(text="", sentences=(), events=events, actors=("Ann", "Bob")))
    >>> possible(g, ("Ann",), "ball")
    ('box',)
    >>> possible(g, ("Bob",), "ball")  # Bob left before the move: it could be anywhere
    ('box', None)
    >>> possible(g, ("Ann",), ("box", "contains"))
    ('ball',)
    >>> possible(g, ("Bob",), ("box", "contains"))  # he never saw the box filled
    ('ball', None)
    """
    holders = _holders(graph, chain)
    var = (variable, "in") if isinstance(variable, str) else tuple(variable)
    t = _time(graph, at)
    chosen = resolve_axioms(axioms, without)
    beliefs = _beliefs(graph, max_order)
    shape, keys, extra = _shape(graph, beliefs, var)
    with gc_paused():
        found = _enumerate(graph, beliefs, chosen, holders, t, (shape, keys, extra))
    if found is None:
        raise InconsistentGraphError(
            check(graph, axioms=axioms, without=without, max_order=max_order)
        )
    return _sorted(found)


def _enumerate(graph, beliefs, chosen, holders, t, query) -> list[Any] | None:
    """Every value the probe can take, by blocking each model's value in turn."""
    shape, keys, extra = query
    enc = Encoding(graph, beliefs, probes=[(holders, k, t) for k in keys], keys=set(keys))
    if shape == "contents":
        enc._code(extra)  # a container nothing was ever put in still has a name
    tracked = enc.build(chosen, pooled=len(beliefs))
    names = list(tracked.literals)
    if not tracked.check(names):
        return None  # nothing is possible in an inconsistent graph
    solver, terms = tracked.solver, enc.terms

    def is_(term: Any, value: int) -> Any:
        return terms.eq(term, terms.num(value))

    found: list[Any] = []
    if shape == "place":
        # One picture term; each model names a place (or none the story names), which is
        # then blocked, until nothing is left.
        (key,) = keys
        query = enc.at(holders, key, t)
        named = {code: place for place, code in enc.places.items()}
        blocked: list[Any] = []
        while tracked.check(names, *blocked):
            code = solver.model().eval(terms.as_int(query), model_completion=True).as_long()
            if code in named:
                found.append(named[code])
                blocked.append(terms.not_(is_(query, code)))
            else:
                found.append(None)
                blocked.append(terms.or_([is_(query, c) for c in named]))
    elif shape == "contents":
        # Each object is inside when its own picture puts it there; "none" when no object's
        # does. A fresh selector picks one reading; blocking enumerates them.
        home = enc.places[extra]
        objects = [k[1] for k in keys]
        inside = [is_(enc.at(holders, k, t), home) for k in keys]
        selector = terms.var(False)
        readings = [terms.and_([terms.not_(x) for x in inside]), *inside]
        options = [terms.and_([is_(selector, i), r]) for i, r in enumerate(readings)]
        blocked = [terms.or_(options)]
        while tracked.check(names, *blocked):
            i = solver.model().eval(terms.as_int(selector), model_completion=True).as_long()
            found.append(objects[i - 1] if i else None)
            blocked.append(terms.not_(is_(selector, i)))
    else:
        (key,) = keys
        claim = enc.holds(enc.at(holders, key, t), extra)
        for value, formula in ((False, terms.not_(claim)), (True, claim)):
            if tracked.check(names, formula):
                found.append(value)
    return found


def truth_status(
    graph: BeliefGraph,
    belief: Belief,
    *,
    at: int | None = None,
    axioms: Iterable[str] | None = None,
    without: Iterable[str] = (),
    max_order: int | None = None,
) -> TruthStatus:
    """Whether ``belief`` is True, False or Unknown against what its reference can be.

    The reference is reality for a first-order belief, and the next holder in for a nested
    one ("Anne believes Sally believes p" is true when Sally believes p). The belief is True
    when every consistent reading of the graph makes it so, False when none does, Unknown
    otherwise. The belief itself is left out, so its own label cannot decide the answer.
    A belief that a thing is in a place nothing else names ("the ball is in the piano") is
    False where the reference is settled on a named place and Unknown where it is open, never
    True (nothing the story says puts anything there); its negation the other way round.

    Parameters
    ----------
    graph : BeliefGraph
    belief : Belief
    at : int, optional
        The time step (default: the last step of the belief's span).
    axioms, without, max_order
        As for ``possible``.

    Returns
    -------
    str
        ``"True"``, ``"False"`` or ``"Unknown"``.

    Raises
    ------
    ConfigurationError
        For a belief whose proposition has no value, or a time outside the story.
    InconsistentGraphError
        When the graph is inconsistent.

    Examples
    --------
    >>> from beliefgraph import BeliefGraph
    >>> from beliefgraph.models import Event, ParsedStory, Proposition
    >>> loc = Proposition(content_type="Location", subject="ball", relation="in", value="box")
    >>> events = (Event(id=1, kind="enter", actors=("Ann", "Bob"), room="hall"),
    ...           Event(id=2, kind="move", actors=("Ann",), obj="ball", destination="box",
    ...                 proposition=loc))
    >>> g = BeliefGraph(ParsedStory(text="", sentences=(), events=events, actors=("Ann", "Bob")))
    >>> truth_status(g, g.belief(("Ann", "Bob"), obj="ball"))
    'True'
    """
    read = key_test(belief.proposition)
    if read is None:
        raise ConfigurationError(
            f"cannot judge {belief.proposition.render()!r}: it has no value to compare"
        )
    key, test, _ = read
    ref = belief.holders[1:]
    when = at if at is not None else (graph.end if belief.end is None else belief.end - 1)
    t = _time(graph, when)
    chosen = resolve_axioms(axioms, without)
    beliefs = [b for b in _beliefs(graph, max_order) if b != belief]
    with gc_paused():
        enc = Encoding(graph, beliefs, probes=[(ref, key, t)], keys={key})
        tracked = enc.build(chosen, pooled=len(beliefs))
        names = list(tracked.literals)
        claim = enc.holds(enc.at(ref, key, t), test)
        can_be = tracked.check(names, claim)
        can_fail = tracked.check(names, enc.terms.not_(claim))
    if not (can_be or can_fail):
        raise InconsistentGraphError(
            check(graph, axioms=axioms, without=without, max_order=max_order)
        )
    if can_be and can_fail:
        return "Unknown"
    return "True" if can_be else "False"


def _holders(graph: BeliefGraph, chain: Iterable[str] | str) -> tuple[str, ...]:
    holders = (chain,) if isinstance(chain, str) else tuple(chain)
    unknown = [h for h in holders if h not in graph.actors]
    if unknown:
        raise BeliefGraphError(
            f"unknown actor(s) {unknown} in holder chain {holders}; "
            f"the story's actors are {list(graph.actors)}"
        )
    return holders


def _time(graph: BeliefGraph, at: int | None) -> int:
    t = graph.end if at is None else at
    if not 0 <= t <= graph.end:
        raise ConfigurationError(f"time {t} is outside the story (0..{graph.end})")
    return t


def _beliefs(graph: BeliefGraph, max_order: int | None) -> list[Belief]:
    return [*derived_beliefs(graph, max_order), *graph.asserted]


def _shape(graph: BeliefGraph, beliefs: list[Belief], var: tuple[str, ...]):
    """The query's kind, the picture keys it reads, and its test or container."""
    if len(var) == 2 and var[1] == "in":
        return "place", [("loc", var[0])], None
    if len(var) == 2 and var[1] == "contains":
        # What can be inside: things the story ever places somewhere other than a room (so
        # neither actors nor containers standing in rooms), and objects the parser typed.
        tl = graph.timeline
        rooms = {e.room for e in graph.events if e.room} | set(tl.container_rooms.values())
        rooms |= {r for step in tl.steps for r in step.rooms.values() if r}
        props = [*tl.propositions.values(), *(b.proposition for b in beliefs)]
        props += [e.proposition for e in graph.events if e.proposition is not None]
        objects = {e.name for e in graph.story.entities if e.kind == "object"}
        for p in props:
            read = key_test(p)
            if read is not None and read[0][0] == "loc" and read[1][1] not in rooms:
                objects.add(read[0][1])
        objects -= set(graph.actors)
        return "contents", [("loc", o) for o in sorted(objects)], var[0]
    read = var_test(var, True) if len(var) >= 3 else None
    if read is None:
        raise ConfigurationError(
            f"unknown variable {var!r}; use (obj, 'in'), (container, 'contains') or "
            "(subject, relation, value)"
        )
    return "fact", [read[0]], read[1]


def _sorted(found: list[Any]) -> tuple[Any, ...]:
    named = sorted({v for v in found if v is not None}, key=lambda v: (str(type(v)), v))
    return (*named, *([None] if None in found else []))
