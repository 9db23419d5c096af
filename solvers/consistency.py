"""Check a belief graph for consistency with z3: named axioms, minimal conflicts, plain English.

A ``BeliefGraph`` is encoded as finite-domain constraints over *pictures*: for every holder
chain (``()`` is reality) and every story variable, the value the chain takes it to have at
each time step. A location is one integer per object (its place; any unnamed value means
"somewhere the story never names"), a yes/no fact one boolean. The graph's facts are its
events (what each one does to the world, who perceives it, what it shows or tells) and its
beliefs (derived by propagation, or asserted with ``graph.add_belief``); the axioms are
registered rules (``beliefgraph.registry.axioms``) that tie them together:

==================== ========================================================================
unique_location      a thing is in one place at a time; "box contains x" is read as "x is
                     in the box" (a belief about a place is about the holder's one picture)
no_contradiction     no holder, at any order, believes p and not-p over the same span
factive              knowledge is true: a belief sourced by Perception and labelled True
                     holds in reality (order 1), or for the inner holder (order n), where
                     it starts and where its truth is judged (the last step of its span)
introspection        "A believes A believes p" exactly when "A believes p"
perception_source    a Perception belief starts at an event all its holders perceived that
                     shows it
testimony_source     a Testimony belief starts at a telling all its holders heard that
                     asserts it (never at the speaker's own telling)
memory_source        a Memory belief was shown or told to its holders by an event no later
                     than its start (the look it rests on)
persistence          a picture changes only at an event its holders perceived or were told
                     about (a speaker's own belief survives their lie)
observation          an event the holders perceived sets their picture to what it shows
==================== ========================================================================

Each constraint is asserted under the literals of the facts it encodes and of the axioms it
relies on; z3's unsat core of those literals, shrunk by deletion, names the clashing beliefs,
the events and the axioms of each conflict. z3 types never leave this module.

Time is finite and unrolled: a chain's picture is materialised only at the steps where
something can happen to it (an event it perceives, the start of a belief, a probe), and
consecutive materialised steps are linked by ``persistence`` or ``observation``, so the
encoding grows with beliefs and perceived events, not with the story's length times actors.
A first, untracked pass substitutes the equalities those two axioms force and leaves z3 the
rest; only an inconsistent graph pays for the tracked encoding that names its conflicts.

Limits: a proposition with Epistemic content ("Sally thinks p") is checked as an opaque
yes/no fact, not linked to the chain ``(..., "Sally")`` (state nested beliefs as holder chains
to have them reasoned about); beliefs with an empty value or span are listed as ``unchecked``;
a telling *permits* a hearer to change belief but never forces it (trust is the propagator's
business), and a container label is a permitted, not a forced, change.
"""

from __future__ import annotations

import bisect
import gc
import itertools
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import z3
import z3.z3core as _C
from pydantic import Field

from beliefgraph.errors import BeliefGraphError, ConfigurationError, UnknownNameError
from beliefgraph.explain import phrase_chain
from beliefgraph.models import Belief, BeliefModel, Proposition
from beliefgraph.registry import axioms as axiom_registry
from beliefgraph.registry import resolve

from .propagation import normalise_chain

if TYPE_CHECKING:
    from beliefgraph.graph import BeliefGraph

    from .perception import Step

__all__ = [
    "DEFAULT_AXIOMS",
    "Axiom",
    "Conflict",
    "ConsistencyReport",
    "Constraint",
    "Encoding",
    "InconsistencyWarning",
    "InconsistentGraphError",
    "check",
    "resolve_axioms",
]

Chain = tuple[str, ...]
Key = tuple[str, ...]
"""``("loc", obj)`` for an object's place, ``("fact", subject, relation, value)`` for a yes/no
fact."""
Test = tuple[str, Any]
"""``("eq", place)``, ``("ne", place)`` or ``("is", bool)``: what a claim says of a picture."""
Fact = tuple[str, int]
"""``("belief", i)`` (the i-th checked belief) or ``("event", t)``."""
Form = Literal["location", "contents", "fact"]

UL, NC, FACTIVE, INTRO = "unique_location", "no_contradiction", "factive", "introspection"
PERCEPTION, TESTIMONY, MEMORY = "perception_source", "testimony_source", "memory_source"
PERSISTENCE, OBSERVATION = "persistence", "observation"

DEFAULT_AXIOMS: tuple[str, ...] = (
    UL,
    NC,
    FACTIVE,
    INTRO,
    PERCEPTION,
    TESTIMONY,
    MEMORY,
    PERSISTENCE,
    OBSERVATION,
)
"""Short names of the built-in axioms, in the order reports list them."""


# -- errors -------------------------------------------------------------------------------------
class InconsistentGraphError(BeliefGraphError, ValueError):
    """A graph (or a parse) breaks the consistency axioms; ``report`` says how.

    ``str(err)`` is the report's ``explain()`` text, ready to send back to a parser.
    """

    def __init__(self, report: ConsistencyReport) -> None:
        self.report = report
        super().__init__(report.explain())


class InconsistencyWarning(UserWarning):
    """Issued by ``track(..., check="warn")`` for an inconsistent parse."""


# -- the report ---------------------------------------------------------------------------------
class Conflict(BeliefModel):
    """One minimal set of facts that cannot hold together under the axioms it names."""

    beliefs: tuple[Belief, ...]
    """The clashing beliefs (hand-asserted ones have ``asserted=True``)."""
    axioms: tuple[str, ...]
    """Short names of the axioms the clash relies on."""
    events: tuple[int, ...]
    """Ids of the events involved: those in the core and those the beliefs came from."""
    sentences: tuple[str, ...]
    """The story lines behind ``events``, cited as in explanations."""
    explanation: str
    """One line of plain English."""

    @property
    def asserted(self) -> tuple[Belief, ...]:
        """The hand-asserted beliefs among ``beliefs``: the usual suspects."""
        return tuple(b for b in self.beliefs if b.asserted)

    def __str__(self) -> str:
        return self.explanation


class ConsistencyReport(BeliefModel):
    """What ``check`` found: consistent or not, and each conflict with its explanation.

    Examples
    --------
    >>> ConsistencyReport(consistent=True, conflicts=(), axioms=("persistence",),
    ...                   beliefs=3, events=2).explain()
    'Consistent: 3 beliefs and 2 events satisfy persistence.'
    """

    consistent: bool
    """True when some assignment satisfies every fact under every axiom checked."""
    conflicts: tuple[Conflict, ...]
    """Minimal conflicts, each found after setting the previous culprit aside."""
    axioms: tuple[str, ...]
    """The axioms checked (short names; registered names for third-party ones)."""
    beliefs: int = Field(ge=0)
    """How many beliefs were encoded."""
    events: int = Field(ge=0)
    """How many events were encoded."""
    unchecked: tuple[Belief, ...] = ()
    """Beliefs the encoding cannot express (an empty value or an empty span)."""
    complete: bool = True
    """False when ``max_conflicts`` stopped the search before every conflict was found."""

    def explain(self) -> str:
        """The report as text: one line per conflict, for people and for parser re-asks."""
        if self.consistent:
            return (
                f"Consistent: {self.beliefs} beliefs and {self.events} events satisfy "
                f"{', '.join(self.axioms)}."
            )
        lines = [f"Inconsistent: {len(self.conflicts)} conflict(s)."]
        for i, c in enumerate(self.conflicts, 1):
            lines.append(f"{i}. {c.explanation} [axioms: {', '.join(c.axioms) or 'none'}]")
        if not self.complete:
            lines.append("(more conflicts may remain; raise max_conflicts to list them)")
        return "\n".join(lines)


# -- axioms: the registry entries -------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Constraint:
    """A z3 formula produced by an axiom, with the facts it encodes and the axioms it needs.

    The encoder asserts ``expr`` under the literal of the producing axiom, of every name in
    ``axioms`` and of every fact, so an unsat core maps back to all of them.
    """

    expr: Any
    facts: tuple[Fact, ...] = ()
    axioms: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Axiom:
    """A named, documented rule; ``constraints(encoding)`` yields its z3 constraints."""

    name: str
    rule: str
    """The rule in one sentence (docs, CLI)."""
    because: str
    """The clause a conflict explanation uses when the axiom is involved."""
    constraints: Callable[[Encoding], Iterable[Constraint]]


def resolve_axioms(
    axioms: Iterable[str] | None = None, without: Iterable[str] = ()
) -> tuple[Axiom, ...]:
    """The axioms to check: ``axioms`` (default: all built-in ones) minus ``without``.

    Names are short (``"persistence"``) or registered (``"beliefgraph.axiom.persistence.v1"``).

    Raises
    ------
    UnknownNameError
        For a name that is not registered.

    Examples
    --------
    >>> [a.name for a in resolve_axioms(without=["observation", "memory_source"])][:3]
    ['unique_location', 'no_contradiction', 'factive']
    """
    wanted = list(DEFAULT_AXIOMS if axioms is None else axioms)
    drop = {_axiom(n).name for n in without}
    out: list[Axiom] = []
    for n in wanted:
        ax = _axiom(n)
        if ax.name not in drop and ax.name not in {a.name for a in out}:
            out.append(ax)
    return tuple(out)


def _axiom(name: str) -> Axiom:
    registered = name if "." in name else f"beliefgraph.axiom.{name}.v1"
    try:
        return resolve(axiom_registry, registered, "axiom")()
    except UnknownNameError:
        raise UnknownNameError(
            f"unknown axiom {name!r}; the built-in ones are {', '.join(DEFAULT_AXIOMS)} "
            "(or give a registered name such as 'beliefgraph.axiom.persistence.v1')"
        ) from None


# -- the encoding -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Claim:
    """What a fact says of one picture over a span: ``test`` holds for ``chain``'s ``key``."""

    chain: Chain
    key: Key
    test: Test
    start: int
    end: int  # exclusive
    fact: Fact
    gates: tuple[str, ...]
    """The axioms that give the claim its force (its link to the picture)."""
    belief: int | None = None
    knowledge: bool = False


@dataclass(slots=True)
class _EventInfo:
    t: int
    perceivers: frozenset[str]
    shows: dict[Key, Test] = field(default_factory=dict)  # perceived reveals, last per key
    promises: dict[Key, Test] = field(default_factory=dict)  # label defaults, last per key
    speaker: str | None = None
    hearers: frozenset[str] = frozenset()
    told: tuple[Key, Test] | None = None
    world: list[tuple[Key, Test, Form]] = field(default_factory=list)
    changes: set[Key] = field(default_factory=set)


def _bare(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The C function behind a ``z3core`` wrapper, without its per-call error check.

    The check costs more than the call; the builders below only combine well-sorted terms,
    and any error z3 records still surfaces at the next checked call (``Solver.check``).
    """
    elems = (fn.__defaults__ or (None,))[-1]
    return getattr(elems, "f", fn)


_mk_const, _mk_int_symbol = _bare(_C.Z3_mk_const), _bare(_C.Z3_mk_int_symbol)
_mk_eq, _mk_not, _mk_implies = _bare(_C.Z3_mk_eq), _bare(_C.Z3_mk_not), _bare(_C.Z3_mk_implies)
_mk_and, _mk_or, _inc_ref = _bare(_C.Z3_mk_and), _bare(_C.Z3_mk_or), _bare(_C.Z3_inc_ref)


class _Terms:
    """Fast z3 term builders over raw ASTs of a private context.

    The python wrappers (``z3.BoolRef``) cost more than the solving here, so terms are raw
    C-API ASTs. Each one is kept alive by one reference that is never released: the context
    is private to one encoding and frees everything when it goes.
    """

    def __init__(self) -> None:
        self.ctx = z3.Context()
        self.ref = self.ctx.ref()
        self._sorts = (z3.IntSort(self.ctx), z3.BoolSort(self.ctx))  # keep them referenced
        self.int_sort, self.bool_sort = (s.ast for s in self._sorts)
        self.true = self._keep(_C.Z3_mk_true(self.ref))
        self.false = self._keep(_C.Z3_mk_false(self.ref))
        self._nums: dict[int, Any] = {}
        self._n = itertools.count()

    def _keep(self, ast: Any) -> Any:
        _inc_ref(self.ref, ast)
        return ast

    def var(self, boolean: bool) -> Any:
        """A fresh, anonymous picture variable."""
        sym = _mk_int_symbol(self.ref, next(self._n))
        return self._keep(_mk_const(self.ref, sym, self.bool_sort if boolean else self.int_sort))

    def literal(self, name: str) -> Any:
        """The named boolean that tracks a fact or an axiom."""
        sym = _C.Z3_mk_string_symbol(self.ref, name)
        return self._keep(_mk_const(self.ref, sym, self.bool_sort))

    def num(self, v: int) -> Any:
        n = self._nums.get(v)
        if n is None:
            n = self._nums[v] = self._keep(_C.Z3_mk_int(self.ref, v, self.int_sort))
        return n

    def eq(self, a: Any, b: Any) -> Any:
        return self._keep(_mk_eq(self.ref, a, b))

    def not_(self, a: Any) -> Any:
        return self._keep(_mk_not(self.ref, a))

    def implies(self, a: Any, b: Any) -> Any:
        return self._keep(_mk_implies(self.ref, a, b))

    def and_(self, xs: Sequence[Any]) -> Any:
        if len(xs) == 1:
            return xs[0]
        if not xs:
            return self.true
        return self._keep(_mk_and(self.ref, len(xs), (_C.Ast * len(xs))(*xs)))

    def or_(self, xs: Sequence[Any]) -> Any:
        if len(xs) == 1:
            return xs[0]
        if not xs:
            return self.false
        return self._keep(_mk_or(self.ref, len(xs), (_C.Ast * len(xs))(*xs)))

    def as_bool(self, a: Any) -> z3.BoolRef:
        """A python-API view of a raw formula (for ``Solver.add`` and ``check``)."""
        return z3.BoolRef(a, self.ctx)

    def as_int(self, a: Any) -> z3.ArithRef:
        """A python-API view of a raw integer term (for model evaluation)."""
        return z3.ArithRef(a, self.ctx)


class Encoding:
    """The z3 encoding of a graph's events and of the given beliefs; axioms read it.

    Parameters
    ----------
    graph : BeliefGraph
        Supplies the events, their perceivers and what each shows, tells and changes.
    beliefs : sequence of Belief
        The beliefs to encode (``check`` passes the derived ones, then the asserted ones).
    probes : iterable of (chain, key, time)
        Extra pictures to materialise (``possible`` asks about them).
    keys : set of Key, optional
        Encode only these keys (a query about one object needs no other).

    Notes
    -----
    Axioms use ``claims``, ``dynamic_pairs()``, ``points(chain, key)``, ``at(chain, key, t)``,
    ``holds(term, test)``, ``change(chain, key, t)`` and ``terms`` (the z3 builders).
    """

    def __init__(
        self,
        graph: BeliefGraph,
        beliefs: Sequence[Belief],
        *,
        probes: Iterable[tuple[Chain, Key, int]] = (),
        keys: set[Key] | None = None,
    ) -> None:
        self.graph = graph
        self.steps: list[Step] = list(graph.timeline.steps)
        self.end = len(self.steps)
        for i, step in enumerate(self.steps, 1):
            if step.event.id != i:  # time is the event id: the unrolling relies on it
                raise BeliefGraphError(
                    f"event ids must run 1..n in story order; event {i} has id {step.event.id}"
                )
        self._members: dict[Chain, frozenset[str]] = {}
        self.beliefs = list(beliefs)
        self.terms = _Terms()
        self._holds: dict[tuple[int, Test], Any] = {}
        self.places: dict[str, int] = {}
        self.unchecked: list[int] = []
        self._keys = keys
        self.events = [self._event_info(s) for s in self.steps]
        self.claims: list[Claim] = []
        for i, b in enumerate(self.beliefs):
            read = _key_test(b.proposition)
            if read is not None and not self._wanted(read[0]):
                continue  # another object's business: a query needs none of it
            claim = self._belief_claim(i, b, read)
            if claim is None:
                self.unchecked.append(i)
            else:
                self.claims.append(claim)
        for ev in self.events:
            for key, test, form in ev.world:
                self.claims.append(
                    Claim((), key, test, ev.t, ev.t + 1, ("event", ev.t), _gates(form, test, False))
                )
        self._points: dict[tuple[Chain, Key], set[int]] = {}
        self._changes: dict[tuple[Chain, Key, int], tuple[str, Test]] = {}
        self._dynamic: set[tuple[Chain, Key]] = set()
        self._layout(list(probes))
        self._sorted = {pair: sorted(pts) for pair, pts in self._points.items()}
        self._vars: dict[tuple[Chain, Key], dict[int, Any]] = {}  # made when first asked for

    # -- reading the story ---------------------------------------------------------------------
    def _wanted(self, key: Key) -> bool:
        return self._keys is None or key in self._keys

    def _code(self, place: str) -> int:
        code = self.places.get(place)
        if code is None:
            code = self.places[place] = len(self.places) + 1  # 0 and the rest: unnamed places
        return code

    def _read(self, p: Proposition) -> tuple[Key, Test, Form] | None:
        read = _key_test(p)
        if read is None or not self._wanted(read[0]):
            return None
        if read[1][0] in ("eq", "ne"):
            self._code(read[1][1])
        return read

    def _event_info(self, step: Step) -> _EventInfo:
        e = step.event
        info = _EventInfo(e.id, frozenset(step.perceivers))
        effects: list[tuple[Key, Test, Form]] = []
        for r in step.reveals:
            read = self._read(r.proposition)
            if read is not None and r.value is None:  # seen to stop holding (someone left)
                ended = _ended(read[1])
                read = None if ended is None else (read[0], ended, read[2])
            if read is None:
                continue
            if r.mode == "perceive":  # perception is veridical: what is shown is so
                info.shows[read[0]] = read[1]
                effects.append(read)
            else:
                info.promises[read[0]] = read[1]
        for var in sorted(step.changed):
            if var not in step.world:
                continue
            read = _var_test(var, step.world[var])
            if read is not None and self._wanted(read[0]):
                if read[1][0] != "is":
                    self._code(read[1][1])
                effects.append(read)
        info.world = list(dict.fromkeys(effects))
        info.changes = {k for k in self._changed_keys(step) if self._wanted(k)}
        if e.kind == "tell" and e.proposition is not None and e.agent is not None:
            read = self._read(e.proposition)
            if read is not None:
                info.speaker = e.agent
                info.hearers = frozenset(e.hearers) if e.hearers else info.perceivers - {e.agent}
                info.told = (read[0], read[1])
        return info

    def _changed_keys(self, step: Step) -> set[Key]:
        """The picture keys an event changes in reality (deleted contents included)."""
        keys: set[Key] = set()
        t = step.event.id
        before = self.steps[t - 2].world if t >= 2 else {}
        for var in step.changed:
            value = step.world.get(var, before.get(var))
            if value is None:
                continue
            read = _var_test(var, value)
            if read is not None:
                keys.add(read[0])
        return keys

    def _belief_claim(self, i: int, b: Belief, read: tuple[Key, Test, Form] | None) -> Claim | None:
        if read is None:
            return None
        key, test, form = read
        if test[0] != "is":
            self._code(test[1])
        start = min(b.start, self.end)
        end = self.end + 1 if b.end is None else min(b.end, self.end + 1)
        if end <= start:
            return None
        # Knowledge is a justified true belief: seen by the holder and labelled True.
        knowledge = b.order >= 1 and b.mental_source == "Perception" and b.truth_status == "True"
        gates = _gates(form, test, True)
        return Claim(b.holders, key, test, start, end, ("belief", i), gates, i, knowledge)

    # -- where pictures are materialised -------------------------------------------------------
    def _add(self, chain: Chain, key: Key, *times: int) -> None:
        self._points.setdefault((chain, key), set()).update(times)

    def _layout(self, probes: list[tuple[Chain, Key, int]]) -> None:
        for c in self.claims:
            # A claim is checked where its span starts and wherever its picture may change
            # inside it; in between, persistence carries the value.
            self._add(c.chain, c.key, c.start)
            if c.knowledge:
                self._add(c.chain[1:], c.key, c.start, c.end - 1)
        for chain, key, t in probes:
            self._add(chain, key, min(max(t, 0), self.end))
        for ev in self.events:  # reality is pictured wherever an event touches it
            for key in {*ev.changes, *(k for k, _, _ in ev.world)}:
                self._add((), key, ev.t)
        for (chain, key), pts in list(self._points.items()):
            norm = normalise_chain(chain)
            if norm != chain:
                self._add(norm, key, *pts)
        keys_of: dict[Chain, set[Key]] = {}
        for chain, key in list(self._points):
            if normalise_chain(chain) == chain and chain:
                self._add(chain, key, 0)
                keys_of.setdefault(chain, set()).add(key)
                self._dynamic.add((chain, key))
        for chain, key in list(self._points):
            if not chain:
                self._add((), key, 0, *(ev.t for ev in self.events if key in ev.changes))
        for chain, keys in keys_of.items():
            for ev in self.events:  # an event the chain perceived may change what it showed
                if not self.perceives(chain, ev.t):
                    continue
                for key in keys & {*ev.shows, *ev.promises, *(ev.told[:1] if ev.told else ())}:
                    how = self._change(chain, key, ev.t)
                    if how is not None:
                        self._add(chain, key, ev.t)
                        self._changes[(chain, key, ev.t)] = how

    # -- what axioms read ----------------------------------------------------------------------
    def dynamic_pairs(self) -> Iterator[tuple[Chain, Key]]:
        """The (chain, key) pictures that evolve with events: reality and repeat-free chains."""
        for chain, key in self._sorted:
            if normalise_chain(chain) == chain:
                yield chain, key

    def pairs(self) -> Iterator[tuple[Chain, Key]]:
        """Every materialised (chain, key) picture."""
        yield from self._sorted

    def points(self, chain: Chain, key: Key, start: int = 0, end: int | None = None) -> list[int]:
        """The materialised times of a picture in ``[start, end)``, in order."""
        pts = self._sorted.get((chain, key), [])
        lo = bisect.bisect_left(pts, start)
        hi = len(pts) if end is None else bisect.bisect_left(pts, end)
        return pts[lo:hi]

    def at(self, chain: Chain, key: Key, t: int) -> Any:
        """The z3 term of ``chain``'s picture of ``key`` at the materialised time ``t``."""
        pictures = self._vars.get((chain, key))
        if pictures is None:
            pictures = self._vars[(chain, key)] = {}
        term = pictures.get(t)
        if term is None:
            if t not in self._points[(chain, key)]:
                raise KeyError(f"{chain}'s picture of {key} is not materialised at time {t}")
            term = pictures[t] = self.terms.var(key[0] == "fact")
        return term

    def holds(self, term: Any, test: Test) -> Any:
        """The z3 formula saying ``test`` holds of a picture term."""
        key = (term.value, test)
        found = self._holds.get(key)
        if found is None:
            op, value = test
            if op == "is":
                found = term if value else self.terms.not_(term)
            else:
                found = self.terms.eq(term, self.terms.num(self.places[value]))
                if op == "ne":
                    found = self.terms.not_(found)
            self._holds[key] = found
        return found

    def perceives(self, chain: Chain, t: int) -> bool:
        """Whether every member of ``chain`` perceived the event at time ``t``."""
        who = self._members.get(chain)
        if who is None:
            who = self._members[chain] = frozenset(chain)
        return 1 <= t <= self.end and who <= self.events[t - 1].perceivers

    def may_adopt(self, chain: Chain, t: int) -> bool:
        """Whether the telling at ``t`` may change ``chain``'s picture (never the teller's own)."""
        ev = self.events[t - 1]
        if ev.told is None or not chain or not self.perceives(chain, t):
            return False
        if chain[-1] == ev.speaker:
            return len(chain) >= 2 and chain[-2] in ev.hearers
        return chain[-1] in ev.hearers

    def change(self, chain: Chain, key: Key, t: int) -> tuple[str, Test] | None:
        """How the event at ``t`` may change ``chain``'s picture of ``key``, if it may.

        ``("observe", test)`` when the chain perceived it show ``test``; ``("may", test)`` for
        a telling the chain may adopt or a label's promise; None when the picture must stay.
        """
        if (chain, key) in self._dynamic:  # worked out once, when the pictures were laid out
            return self._changes.get((chain, key, t))
        return self._change(chain, key, t)

    def _change(self, chain: Chain, key: Key, t: int) -> tuple[str, Test] | None:
        ev = self.events[t - 1]
        if not self.perceives(chain, t):
            return None
        if key in ev.shows:
            return ("observe", ev.shows[key])
        if ev.told is not None and ev.told[0] == key and self.may_adopt(chain, t):
            return ("may", ev.told[1])
        if key in ev.promises:
            return ("may", ev.promises[key])
        return None

    def claim_constraints(self, claim: Claim, chain: Chain | None = None) -> Iterator[Constraint]:
        """``claim`` at every materialised time of its span (on ``chain`` if given)."""
        target = claim.chain if chain is None else chain
        exprs = [
            self.holds(self.at(target, claim.key, t), claim.test)
            for t in self.points(target, claim.key, claim.start, claim.end)
        ]
        if exprs:
            yield Constraint(self.terms.and_(exprs), (claim.fact,), claim.gates)

    # -- the first, untracked pass -------------------------------------------------------------
    def satisfiable(self, axioms: Sequence[Axiom]) -> bool:
        """Whether every fact holds under ``axioms``, without telling facts apart.

        The equalities that persistence and observation force are substituted rather than
        asserted (what z3's own ``solve-eqs`` would do), claims on pictures that thereby
        become constants are evaluated at once, and z3 gets only what remains: tellings,
        labels, pictures nobody has seen yet, links between chains. The answer is the
        tracked encoding's with every literal on; only when it is False does ``check`` build
        that encoding, to name the conflict.
        """
        on = {a.name for a in axioms}
        if not on <= set(DEFAULT_AXIOMS):  # a third-party axiom needs the general route
            tracked = self.build(axioms, pooled=len(self.beliefs))
            return tracked.check(tracked.literals)
        terms, residual = self.terms, []
        pictures: dict[tuple[Chain, Key], dict[int, Any]] = {}
        for pair in sorted(self._sorted, key=lambda p: normalise_chain(p[0]) != p[0]):
            pictures[pair] = self._unroll(pair, on, pictures, residual)
        for claim in self.claims:
            if claim.belief is not None and not self._supported(claim, on):
                return False
            if not all(g in on for g in claim.gates):
                continue  # the claim has no force without them
            picture = pictures[(claim.chain, claim.key)]
            for t in self.points(claim.chain, claim.key, claim.start, claim.end):
                if not self._demand(picture[t], claim.test, residual):
                    return False
            if claim.knowledge and FACTIVE in on:
                ref = pictures[(claim.chain[1:], claim.key)]
                for t in {claim.start, claim.end - 1}:
                    if not self._demand(ref[t], claim.test, residual):
                        return False
        if not residual:
            return True
        solver = z3.Solver(ctx=terms.ctx)
        _C.Z3_solver_assert(terms.ref, solver.solver, terms.and_(residual))
        return _C.Z3_solver_check(terms.ref, solver.solver) == _C.Z3_L_TRUE

    def _unroll(self, pair, on, pictures, residual) -> dict[int, Any]:
        """The picture of ``pair`` at each materialised time: a constant or a z3 term."""
        chain, key = pair
        fresh = self._fresh(key)
        norm = normalise_chain(chain)
        if norm != chain:  # no dynamics of its own: introspection or nothing
            if INTRO in on:
                return {t: pictures[(norm, key)][t] for t in self.points(chain, key)}
            return {t: fresh() for t in self.points(chain, key)}
        keep, see = PERSISTENCE in on, OBSERVATION in on
        out: dict[int, Any] = {}
        cur = None
        for t in self.points(chain, key):
            if cur is None:
                cur = fresh()
            elif not chain:
                if key in self.events[t - 1].changes or not keep:
                    cur = fresh()
            else:
                how = self._changes.get((chain, key, t))
                if how is None:
                    cur = cur if keep else fresh()
                elif how[0] == "observe" and see and how[1][0] != "ne":
                    cur = _Known(self._value(how[1]))
                else:
                    new = fresh()
                    if how[0] == "observe" and see:
                        residual.append(self._formula(new, how[1]))
                    if keep and how[0] == "may":
                        same = self._same(new, cur)
                        residual.append(self.terms.or_([same, self._formula(new, how[1])]))
                    elif keep and how[1][0] == "ne":
                        residual.append(
                            self.terms.implies(self._formula(cur, how[1]), self._same(new, cur))
                        )
                    cur = new
            out[t] = cur
        return out

    def _supported(self, claim: Claim, on: set[str]) -> bool:
        """Whether a belief's mental source is borne out, when its axiom is on."""
        b = self.beliefs[claim.belief or 0]
        rule = _SUPPORT.get(b.mental_source)
        return rule is None or rule[0] not in on or not b.holders or rule[1](self, claim, b)

    def _fresh(self, key: Key) -> Callable[[], Any]:
        boolean = key[0] == "fact"
        return lambda: _Free(boolean)

    def _value(self, test: Test) -> int | bool:
        op, value = test
        return bool(value) if op == "is" else self.places[value]

    def _as_term(self, x: Any) -> Any:
        if isinstance(x, _Free):  # an unseen picture becomes a z3 variable once it matters
            if x.term is None:
                x.term = self.terms.var(x.boolean)
            return x.term
        if not isinstance(x, _Known):
            return x
        v = x.value
        if isinstance(v, bool):
            return self.terms.true if v else self.terms.false
        return self.terms.num(v)

    def _same(self, a: Any, b: Any) -> Any:
        return self.terms.eq(self._as_term(a), self._as_term(b))

    def _formula(self, x: Any, test: Test) -> Any:
        return self.holds(self._as_term(x), test)

    def _demand(self, x: Any, test: Test, residual: list[Any]) -> bool:
        """Require ``test`` of a picture: decided now for a constant, else left to z3."""
        if isinstance(x, _Known):
            op, value = test
            if op == "is":
                return x.value is value
            same = x.value == self.places[value]
            return same if op == "eq" else not same
        residual.append(self.holds(self._as_term(x), test))
        return True

    # -- building the solver -------------------------------------------------------------------
    def build(self, axioms: Sequence[Axiom], *, pooled: int = 0) -> _Tracked:
        """Assert every constraint of the events, the beliefs and ``axioms`` under literals.

        Beliefs ``0 .. pooled - 1`` share one literal, ``belief:pooled``: a first, cheap check
        of a graph that is most likely consistent does not need them told apart.
        """
        names = {a.name for a in axioms}
        groups: dict[tuple[str, ...], list[Any]] = {}
        fact_names: dict[Fact, str] = {}

        def name_of(fact: Fact) -> str:
            found = fact_names.get(fact)
            if found is None:
                kind, ident = fact
                pool = kind == "belief" and ident < pooled
                found = fact_names[fact] = "belief:pooled" if pool else f"{kind}:{ident}"
            return found

        def put(con: Constraint, producer: str | None) -> None:
            if not all(a in names for a in con.axioms):
                return  # it relies on an axiom that is switched off
            guard = {name_of(f) for f in con.facts}
            guard.update(f"axiom:{a}" for a in (*con.axioms, producer) if a is not None)
            groups.setdefault(tuple(sorted(guard)), []).append(con.expr)

        for claim in self.claims:
            if not claim.gates:  # an event's own effect on reality
                for con in self.claim_constraints(claim):
                    put(con, None)
        for ax in axioms:
            for con in ax.constraints(self):
                put(con, ax.name)
        return _Tracked(self.terms, groups)


class _Tracked:
    """A z3 solver holding an encoding's constraints, each group guarded by its literals.

    This is ``Solver.assert_and_track`` generalised to several literals per constraint (the
    facts it encodes and every axiom it needs): the literals are passed to ``check`` as
    assumptions, so the unsat core is a set of names.
    """

    def __init__(self, terms: _Terms, groups: dict[tuple[str, ...], list[Any]]) -> None:
        self.terms = terms
        self.solver = z3.Solver(ctx=terms.ctx)
        self.solver.set("core.minimize", False)  # our own deletion pass is cheaper here
        self._on: dict[str, Any] = {}
        self._off: dict[str, Any] = {}
        for guard, exprs in groups.items():
            body = terms.and_(exprs)
            if guard:
                for n in guard:
                    if n not in self._on:
                        self._on[n] = terms.literal(n)
                        self._off[n] = terms.not_(self._on[n])
                body = terms.implies(terms.and_([self._on[n] for n in guard]), body)
            _C.Z3_solver_assert(terms.ref, self.solver.solver, body)

    @property
    def literals(self) -> list[str]:
        """The names of every literal that guards something."""
        return list(self._on)

    def check(self, names: Iterable[str], *extra: Any) -> bool:
        """Whether the constraints are satisfiable with the named literals (and ``extra`` raw
        formulas) assumed."""
        on = set(names)
        # Literals left out are assumed false, not left free: z3 would otherwise try to
        # satisfy every guarded group it is free to switch on, which is slow for nothing.
        lits = [lit if n in on else self._off[n] for n, lit in self._on.items()]
        lits += extra
        # The python API casts every assumption, which costs more than solving here.
        result = _C.Z3_solver_check_assumptions(
            self.terms.ref, self.solver.solver, len(lits), (_C.Ast * len(lits))(*lits)
        )
        if result == _C.Z3_L_UNDEF:
            raise BeliefGraphError(
                f"z3 could not decide consistency ({self.solver.reason_unknown()}); "
                "switch off an axiom or check a smaller graph"
            )
        return result == _C.Z3_L_TRUE

    def core(self) -> set[str]:
        return {str(x) for x in self.solver.unsat_core()}

    def minimal_core(self, names: Sequence[str]) -> list[str]:
        """A minimal unsat subset of ``names``, dropping the earliest names first."""
        kept = self.core()
        core = [n for n in names if n in kept]
        i = 0
        while i < len(core):
            trial = core[:i] + core[i + 1 :]
            if self.check(trial):
                i += 1  # needed: without it the rest is satisfiable
            else:
                kept = self.core()
                core = [n for n in trial if n in kept]
        return core


@dataclass(frozen=True, slots=True)
class _Known:
    """A picture whose value the first pass has already worked out (a place code or a bool)."""

    value: int | bool


@dataclass(slots=True)
class _Free:
    """A picture nothing has fixed yet; it gets a z3 variable only if a constraint needs it."""

    boolean: bool
    term: Any = None


def _key_test(p: Proposition) -> tuple[Key, Test, Form] | None:
    """The picture key a proposition is about and what it says of it (None: no value)."""
    if p.relation in ("in", "contains") and p.holder is None and p.about is None:
        if not p.value:
            return None
        op = "ne" if p.negated else "eq"
        if p.relation == "in":
            return ("loc", p.subject), (op, p.value), "location"
        return ("loc", p.value), (op, p.subject), "contents"
    # Everything else (actions, traits, what someone thinks or said) is a yes/no fact whose
    # key is the proposition's own variable.
    return ("fact", *p.variable), ("is", not p.negated), "fact"


def _var_test(var: tuple[str, ...], value: object) -> tuple[Key, Test, Form] | None:
    """The picture key and test of the world assigning ``value`` to ``var``."""
    if len(var) == 2 and var[1] in ("in", "contains"):
        if not isinstance(value, str) or not value:
            return None
        if var[1] == "in":
            return ("loc", var[0]), ("eq", value), "location"
        return ("loc", value), ("eq", var[0]), "contents"
    if not isinstance(value, bool):
        return None
    if len(var) == 3 and var[1] in ("in", "contains") and var[2]:
        op = "eq" if value else "ne"
        if var[1] == "in":
            return ("loc", var[0]), (op, var[2]), "location"
        return ("loc", var[2]), (op, var[0]), "contents"
    return ("fact", *var), ("is", value), "fact"


def _ended(test: Test) -> Test | None:
    """What a reveal of "no longer so" says: the opposite of the proposition's test."""
    op, value = test
    if op == "eq":
        return ("ne", value)
    return ("is", not value) if op == "is" else None


def _gates(form: Form, test: Test, belief: bool) -> tuple[str, ...]:
    """The axioms that give a claim its force over a picture.

    A place claim ("x is in k") excludes every other place only by ``unique_location``, and a
    contents claim means anything only through it; a polarity claim (a negation, a yes/no
    fact) clashes with its opposite by ``no_contradiction``. Events define reality, so their
    location and fact effects need no axiom.
    """
    negative = test[0] == "ne" or test == ("is", False)
    if form == "contents":
        return (UL, NC) if belief and negative else (UL,)
    if not belief:
        return ()
    if form == "location":
        return (NC,) if negative else (UL,)
    return (NC,)


# -- the axioms ---------------------------------------------------------------------------------
def _linked_claims(gate: str) -> Callable[[Encoding], Iterator[Constraint]]:
    def constraints(enc: Encoding) -> Iterator[Constraint]:
        for claim in enc.claims:
            if claim.gates and claim.gates[0] == gate:
                yield from enc.claim_constraints(claim)

    return constraints


def _factive(enc: Encoding) -> Iterator[Constraint]:
    for claim in enc.claims:
        if claim.knowledge:
            # The claim, read one level in (reality for order 1), where the belief starts and
            # where its truth label is judged: the last step of its span.
            ref = claim.chain[1:]
            times = sorted({claim.start, claim.end - 1})
            held = [enc.holds(enc.at(ref, claim.key, t), claim.test) for t in times]
            yield Constraint(enc.terms.and_(held), (claim.fact,), claim.gates)


def _introspection(enc: Encoding) -> Iterator[Constraint]:
    eq = enc.terms.eq
    for chain, key in list(enc.pairs()):
        norm = normalise_chain(chain)
        if norm == chain:
            continue
        same = [eq(enc.at(chain, key, t), enc.at(norm, key, t)) for t in enc.points(chain, key)]
        yield Constraint(enc.terms.and_(same))


def _source(
    kind: str, supported: Callable[[Encoding, Claim, Belief], bool]
) -> Callable[[Encoding], Iterator[Constraint]]:
    def constraints(enc: Encoding) -> Iterator[Constraint]:
        for claim in enc.claims:
            if claim.belief is None:
                continue
            b = enc.beliefs[claim.belief]
            if b.mental_source == kind and b.holders and not supported(enc, claim, b):
                # Whether an event supports it is read off the story, so an unsupported
                # belief is simply false under this axiom: the core names belief and axiom.
                yield Constraint(enc.terms.false, (claim.fact,))

    return constraints


def _seen(enc: Encoding, claim: Claim, b: Belief) -> bool:
    t, chain = claim.start, normalise_chain(b.holders)
    return enc.perceives(chain, t) and enc.events[t - 1].shows.get(claim.key) == claim.test


def _heard(enc: Encoding, claim: Claim, b: Belief) -> bool:
    t, chain = claim.start, normalise_chain(b.holders)
    if not enc.may_adopt(chain, t):
        return False
    ev = enc.events[t - 1]
    return ev.told == (claim.key, claim.test) and b.source_actor in (None, ev.speaker)


def _remembered(enc: Encoding, claim: Claim, b: Belief) -> bool:
    # The look or the telling may be the event that formed the belief: a memory is a belief
    # held after the look, whose span starts with it.
    chain = normalise_chain(b.holders)
    for ev in enc.events[: claim.start]:
        if not enc.perceives(chain, ev.t):
            continue
        if claim.test in (ev.shows.get(claim.key), ev.promises.get(claim.key)):
            return True
        if ev.told == (claim.key, claim.test) and enc.may_adopt(chain, ev.t):
            return True
    return False


_SUPPORT: dict[str, tuple[str, Callable[[Encoding, Claim, Belief], bool]]] = {
    "Perception": (PERCEPTION, _seen),
    "Testimony": (TESTIMONY, _heard),
    "Memory": (MEMORY, _remembered),
}


def _persistence(enc: Encoding) -> Iterator[Constraint]:
    t_ = enc.terms
    kept: list[Any] = []
    for chain, key in enc.dynamic_pairs():
        pts = enc.points(chain, key)
        for a, b in itertools.pairwise(pts):
            before, after = enc.at(chain, key, a), enc.at(chain, key, b)
            if not chain:
                if key not in enc.events[b - 1].changes:
                    kept.append(t_.eq(after, before))
                continue
            how = enc.change(chain, key, b)
            if how is None:
                kept.append(t_.eq(after, before))
            elif how[0] == "may":  # told, or promised by a label: keep it or adopt it
                kept.append(t_.or_([t_.eq(after, before), enc.holds(after, how[1])]))
            elif how[1][0] == "ne":  # seen where it is not: keep it if that still fits
                kept.append(t_.implies(enc.holds(before, how[1]), t_.eq(after, before)))
    if kept:
        yield Constraint(t_.and_(kept))


def _observation(enc: Encoding) -> Iterator[Constraint]:
    seen: dict[int, list[Any]] = {}
    for chain, key in enc.dynamic_pairs():
        if not chain:
            continue
        for t in enc.points(chain, key, 1):
            how = enc.change(chain, key, t)
            if how is not None and how[0] == "observe":
                seen.setdefault(t, []).append(enc.holds(enc.at(chain, key, t), how[1]))
    for t, exprs in sorted(seen.items()):
        yield Constraint(enc.terms.and_(exprs), (("event", t),))


_AXIOMS: dict[str, tuple[str, str, Callable[[Encoding], Iterable[Constraint]]]] = {
    UL: (
        "An object is in exactly one place at a time, and a container holds what is located "
        "in it: a belief about a place is about the holder's one picture of the object.",
        "a thing is in one place at a time",
        _linked_claims(UL),
    ),
    NC: (
        "No holder, at any order, believes p and not-p over the same span.",
        "no one believes p and not-p at once",
        _linked_claims(NC),
    ),
    FACTIVE: (
        "Knowledge is factive: a belief sourced by Perception and labelled True holds for the "
        "next holder in (in reality at order 1) where it starts and where its truth is judged "
        "(the last step of its span).",
        "what is known (perceived and labelled True) must be so",
        _factive,
    ),
    INTRO: (
        "Introspection: A believes A believes p exactly when A believes p, at any depth.",
        "A believes A believes p exactly when A believes p",
        _introspection,
    ),
    PERCEPTION: (
        "A belief sourced by Perception starts at an event every holder perceived that shows it.",
        "a perceived belief needs an event its holders saw show it",
        _source("Perception", _seen),
    ),
    TESTIMONY: (
        "A belief sourced by Testimony starts at a telling every holder heard that asserts it "
        "and that may change their belief (never the teller's own).",
        "a belief from testimony needs a telling its holders heard",
        _source("Testimony", _heard),
    ),
    MEMORY: (
        "A belief sourced by Memory was shown or told to its holders by an event no later than "
        "the start of its span (the look it rests on).",
        "a remembered belief needs an earlier event that showed or told it",
        _source("Memory", _remembered),
    ),
    PERSISTENCE: (
        "A picture (a belief, or reality) changes only at an event its holders perceived or "
        "were told about; a speaker's own belief survives their telling.",
        "a belief lasts until its holders perceive or are told something that changes it",
        _persistence,
    ),
    OBSERVATION: (
        "An event that every holder perceived sets their picture to what it shows.",
        "holders believe what an event they perceive shows",
        _observation,
    ),
}


def _make_axiom(name: str) -> Callable[[], Axiom]:
    rule, because, constraints = _AXIOMS[name]

    def make() -> Axiom:
        return Axiom(name, rule, because, constraints)

    make.__name__ = f"make_{name}"
    make.__doc__ = rule
    return make


for _name in DEFAULT_AXIOMS:
    axiom_registry.register(f"beliefgraph.axiom.{_name}.v1", func=_make_axiom(_name))


# -- checking -----------------------------------------------------------------------------------
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


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while an encoding is built and solved.

    An encoding allocates tens of thousands of small objects while the graph holds thousands
    of pydantic beliefs, and each collection the allocations trigger rescans all of them: that
    cost as much as the encoding itself. Nothing built here needs collecting before it ends.
    """
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


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
    because = [_axiom(a).because for a in axioms]
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
