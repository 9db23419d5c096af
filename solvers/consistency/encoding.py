"""The z3 encoding of a graph: pictures per holder chain and key, claims, the first pass.

A chain's *picture* of a key (an object's place, a yes/no fact) is materialised only at the
steps where something can happen to it; axioms read the encoding through ``claims``,
``dynamic_pairs()``, ``points``, ``at``, ``holds``, ``change`` and ``terms``. The first,
untracked pass (``Encoding.satisfiable``) substitutes the equalities that persistence,
observation and the frame rule force; ``Encoding.build`` asserts every constraint under the
literals that name it, for unsat cores.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import z3

from beliefgraph.errors import BeliefGraphError
from beliefgraph.models import Belief, Proposition

from ..propagation import normalise_chain
from .axiom import (
    FACTIVE,
    FRAME,
    INTRO,
    MEMORY,
    NC,
    OBSERVATION,
    PERCEPTION,
    PERSISTENCE,
    TESTIMONY,
    UL,
    Axiom,
    Constraint,
    Fact,
)
from .narration import DESCRIBERS, Places, happenings, involved, sentence_of
from .terms import Terms, assert_raw, check_raw

if TYPE_CHECKING:
    from beliefgraph.graph import BeliefGraph

    from ..perception import Step

__all__ = [
    "PICTURE_AXIOMS",
    "SOURCE_AXIOMS",
    "Chain",
    "Claim",
    "Encoding",
    "EventInfo",
    "Key",
    "Test",
    "Tracked",
    "ended",
    "gates",
    "key_test",
    "var_test",
]

Chain = tuple[str, ...]
Key = tuple[str, ...]
"""``("loc", obj)`` for an object's place, ``("fact", subject, relation, value)`` for a yes/no
fact."""
Test = tuple[str, Any]
"""``("eq", place)``, ``("ne", place)`` or ``("is", bool)``: what a claim says of a picture."""
Form = Literal["location", "contents", "fact"]

PICTURE_AXIOMS = frozenset({UL, NC, FACTIVE, INTRO, PERSISTENCE, OBSERVATION, FRAME})
"""The built-in axioms over pictures that the first pass knows how to substitute."""
SOURCE_AXIOMS: dict[str, str] = {
    "Perception": PERCEPTION,
    "Testimony": TESTIMONY,
    "Memory": MEMORY,
}
"""The axiom that checks a belief's mental source, by source."""


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
class EventInfo:
    t: int
    perceivers: frozenset[str]
    shows: dict[Key, Test] = field(default_factory=dict)  # perceived reveals, last per key
    promises: dict[Key, Test] = field(default_factory=dict)  # label defaults, last per key
    speaker: str | None = None
    hearers: frozenset[str] = frozenset()
    told: tuple[Key, Test] | None = None
    world: list[tuple[Key, Test, Form]] = field(default_factory=list)
    changes: set[Key] = field(default_factory=set)
    unexplained: set[Key] = field(default_factory=set)
    """Keys the event changes although its kind cannot (the ``frame`` axiom's business)."""


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
        self._actors = frozenset(graph.actors)
        self._containers = graph.timeline.container_rooms
        self.beliefs = list(beliefs)
        self.terms = Terms()
        self._holds: dict[tuple[int, Test], Any] = {}
        self.places: dict[str, int] = {}
        self.unchecked: list[int] = []
        self._keys = keys
        self.nesting = Places(graph.timeline)
        self._happened = happenings(self.steps)
        self.events = [self._event_info(s) for s in self.steps]
        self._changed = self._settled()
        self.claims: list[Claim] = []
        for i, b in enumerate(self.beliefs):
            read = key_test(b.proposition)
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
                    Claim((), key, test, ev.t, ev.t + 1, ("event", ev.t), gates(form, test, False))
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
        read = key_test(p)
        if read is None or not self._wanted(read[0]):
            return None
        if read[1][0] in ("eq", "ne"):
            self._code(read[1][1])
        return read

    def _event_info(self, step: Step) -> EventInfo:
        e = step.event
        info = EventInfo(e.id, frozenset(step.perceivers))
        effects: list[tuple[Key, Test, Form]] = []
        before = self.steps[e.id - 2].world if e.id >= 2 else {}
        for r in step.reveals:
            read = self._read(r.proposition)
            held = before.get(r.variable)
            if r.value is None and len(r.variable) == 2 and isinstance(held, str):
                # What stopped is the value the variable held, not the wording the replay
                # first met it in ("the cupboard contains something peculiar", then beans).
                found = var_test(r.variable, held)
                read = found if found is not None and self._wanted(found[0]) else None
            if read is not None and r.value is None:  # seen to stop holding (someone left)
                stopped = ended(read[1])
                read = None if stopped is None else (read[0], stopped, read[2])
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
            read = var_test(var, step.world[var])
            if read is not None and self._wanted(read[0]):
                if read[1][0] != "is":
                    self._code(read[1][1])
                effects.append(read)
        info.world = list(dict.fromkeys(effects))
        info.changes = {k for k in self._changed_keys(step) if self._wanted(k)}
        info.unexplained = self._unexplained(step) & info.changes
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
            read = var_test(var, value)
            if read is not None:
                keys.add(read[0])
        return keys

    def _unexplained(self, step: Step) -> set[Key]:
        """The keys ``step`` changes in reality that its kind of event cannot change.

        A narration or an observation describes the world; only a move moves a thing, and
        seeing or labelling changes no state. A variable the story had not set before is
        being introduced, not changed; where actors are is the replay's business. What a
        faithful reading of prose does is not a move (``narration``): a thing said to be in
        nested places (a belt in a basket on the counter, a container in the room the
        replay gave it), placed twice in one describing sentence, or narrated elsewhere in
        a sentence that reports the happening ("a monkey eats the mangoes on the branch").
        """
        e = step.event
        t = e.id
        before = self.steps[t - 2].world if t >= 2 else {}
        out: set[Key] = set()
        for var in step.changed:
            if var[0] in self._actors:
                continue
            old, new = before.get(var), step.world.get(var)
            if len(var) >= 2 and var[1] in ("in", "contains"):
                key = self._relocated(step, var, old, new, before)
                if key is not None and self._wanted(key):
                    out.add(key)
                continue
            if old is None or e.kind not in ("observe", "label"):
                continue  # introduced, or a narrated or enacted state change: an event
            read = var_test(var, old if new is None else new)
            if read is not None and self._wanted(read[0]):
                out.add(read[0])
        return out

    def _relocated(
        self, step: Step, var: tuple[str, ...], old: Any, new: Any, before: Any
    ) -> Key | None:
        """The place key ``step`` changes by ``var`` without a happening that explains it."""
        e = step.event
        if len(var) == 2:
            if var[1] == "contains" or old is None:
                # A container's contents move with its contents' places (the replay sets
                # both), so the thing's own place variable is the one judged.
                return None
            thing, was, now = var[0], old, new
        else:
            thing, place = (var[0], var[2]) if var[1] == "in" else (var[2], var[0])
            was = before.get((thing, "in"))
            if not isinstance(was, str) or thing in self._actors:
                return None  # a thing with no place yet: introduced, not moved
            if new is True:
                now = place
            elif was == place or self.nesting.within(was, place, e.id):
                now = None  # "no longer in" the place it was in
            else:
                return None  # "not in" a place it was not in: no change
        if now is not None and (not isinstance(now, str) or now == was):
            return None
        if e.kind == "move" and {var[0], thing, was, now} & {e.obj, e.destination, e.origin}:
            return None
        if now is not None and self.nesting.nested(was, now, e.id):
            return None  # nested places agree: a finer or a coarser word for one place
        here = sentence_of(e)
        if here is not None and e.kind in DESCRIBERS:
            same = self.nesting.placed_in(thing, e.id) == here
            if same and was in self.nesting.described(thing, e.id):
                return None  # one sentence describing where a thing is, place by place
            if involved(self._happened.get(here, set()), thing, was, now):
                return None  # a change told in a sentence that reports its happening
        return ("loc", thing)

    def _settled(self) -> dict[Key, list[int]]:
        """Per key, the times an event changes it in reality and may (an explained change)."""
        out: dict[Key, list[int]] = {}
        for ev in self.events:
            for key in ev.changes - ev.unexplained:
                out.setdefault(key, []).append(ev.t)
        return out

    def _reality_end(self, key: Key, test: Test, start: int, end: int) -> int:
        """Where a derived picture of reality ends: at the first explained change that says
        otherwise. The replay keeps a variable per wording ("x is in k", "k does not contain
        x"), so a narrated change can leave another wording's state standing; the change
        ends it rather than conflicting with it."""
        times = self._changed.get(key, ())
        for t in times[bisect.bisect_right(times, start) :]:
            if t >= end:
                break
            if test not in {tst for k, tst, _ in self.events[t - 1].world if k == key}:
                return t
        return end

    def _belief_claim(self, i: int, b: Belief, read: tuple[Key, Test, Form] | None) -> Claim | None:
        if read is None:
            return None
        key, test, form = read
        if test[0] != "is":
            self._code(test[1])
        start = min(b.start, self.end)
        end = self.end + 1 if b.end is None else min(b.end, self.end + 1)
        if not b.holders and not b.asserted:  # reality as the replay derived it
            end = self._reality_end(key, test, start, end)
        if end <= start:
            return None
        # Knowledge is a justified true belief: seen by the holder and labelled True.
        knowledge = b.order >= 1 and b.mental_source == "Perception" and b.truth_status == "True"
        force = gates(form, test, True)
        return Claim(b.holders, key, test, start, end, ("belief", i), force, i, knowledge)

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
        # An event the chain perceived may change what it showed. Only events that show,
        # promise or tell something can, and those a chain perceived are the AND of its
        # members' bit sets (one pass per chain over its own events, not over the story).
        telling = [ev for ev in self.events if ev.shows or ev.promises or ev.told]
        by_actor: dict[str, int] = {}
        for i, ev in enumerate(telling):
            for a in ev.perceivers:
                by_actor[a] = by_actor.get(a, 0) | (1 << i)
        everything = (1 << len(telling)) - 1
        for chain, keys in keys_of.items():
            mask = everything
            for a in chain:
                mask &= by_actor.get(a, 0)
            while mask:
                low = mask & -mask
                mask ^= low
                ev = telling[low.bit_length() - 1]
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
        """The z3 formula saying ``test`` holds of a picture term.

        A place ``test`` names that nothing registered gets a code of its own here (see
        ``_code``), so a query about it is answered, never a ``KeyError``.
        """
        key = (term.value, test)
        found = self._holds.get(key)
        if found is None:
            op, value = test
            if op == "is":
                found = term if value else self.terms.not_(term)
            else:
                # A value the story and the beliefs never name ("the piano" of a parser's
                # implied belief) is a legitimate question: it gets its own code, distinct
                # from every named place, so an open picture may take it and a settled one
                # may not (codes only tell places apart; nothing ranges over them).
                found = self.terms.eq(term, self.terms.num(self._code(value)))
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

    def supports(self, claim: Claim) -> bool:
        """Whether the event a belief claim's mental source names is in the story.

        Perception: an event at the claim's start that every holder perceived shows it.
        Testimony: a telling at its start that the holders heard and may adopt asserts it.
        Memory: an event no later than its start showed or told it to the holders. Other
        sources (and beliefs without holders) are always supported.
        """
        if claim.belief is None:
            return True
        b = self.beliefs[claim.belief]
        if not b.holders:
            return True
        chain, t = normalise_chain(b.holders), claim.start
        if b.mental_source == "Perception":
            shown = self.events[t - 1].shows.get(claim.key)
            return self.perceives(chain, t) and shown == claim.test
        if b.mental_source == "Testimony":
            if not self.may_adopt(chain, t):
                return False
            ev = self.events[t - 1]
            return ev.told == (claim.key, claim.test) and b.source_actor in (None, ev.speaker)
        if b.mental_source == "Memory":
            # The look or the telling may be the event that formed the belief: a memory is a
            # belief held after the look, whose span starts with it.
            for ev in self.events[:t]:
                if not self.perceives(chain, ev.t):
                    continue
                if claim.test in (ev.shows.get(claim.key), ev.promises.get(claim.key)):
                    return True
                if ev.told == (claim.key, claim.test) and self.may_adopt(chain, ev.t):
                    return True
            return False
        return True

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
        if not {a.name for a in axioms if not a.static} <= PICTURE_AXIOMS:
            # a third-party axiom over pictures needs the general route
            tracked = self.build(axioms, pooled=len(self.beliefs))
            return tracked.check(tracked.literals)
        for ax in axioms:  # a rule read off the story alone: any constraint is a breach
            if ax.static and next(iter(ax.constraints(self)), None) is not None:
                return False
        terms, residual = self.terms, []
        pictures: dict[tuple[Chain, Key], dict[int, Any]] = {}
        for pair in sorted(self._sorted, key=lambda p: normalise_chain(p[0]) != p[0]):
            pictures[pair] = self._unroll(pair, on, pictures, residual)
        places, sorted_points = self.places, self._sorted
        for claim in self.claims:
            if not all(g in on for g in claim.gates):
                continue  # the claim has no force without them
            pair = (claim.chain, claim.key)
            picture, pts = pictures[pair], sorted_points[pair]
            op, value = claim.test
            want = value if op == "is" else places[value]
            # ``_demand`` at each materialised time of the span, inlined for the constants
            # that most pictures are (a million calls on a long story)
            for k in range(bisect.bisect_left(pts, claim.start), len(pts)):
                t = pts[k]
                if t >= claim.end:
                    break
                x = picture[t]
                if type(x) is _Known:
                    if (x.value is want) if op == "is" else ((x.value == want) == (op == "eq")):
                        continue
                    return False
                self._demand(x, claim.test, residual)
            if claim.knowledge and FACTIVE in on:
                ref = pictures[(claim.chain[1:], claim.key)]
                for t in {claim.start, claim.end - 1}:
                    if not self._demand(ref[t], claim.test, residual):
                        return False
        if not residual:
            return True
        # z3's plain SMT core: the default solver runs its preprocessing tactics first on a
        # check without assumptions, which took four times as long as the solving on these
        # equalities (1,000 sentences: 8.4 s against 2.1 s); the verdict is the same.
        solver = z3.SimpleSolver(ctx=terms.ctx)
        assert_raw(terms, solver, terms.and_(residual))
        return check_raw(terms, solver) is True

    def _unroll(self, pair, on, pictures, residual) -> dict[int, Any]:
        """The picture of ``pair`` at each materialised time: a constant or a z3 term."""
        chain, key = pair
        fresh = self._fresh(key)
        norm = normalise_chain(chain)
        if norm != chain:  # no dynamics of its own: introspection or nothing
            if INTRO in on:
                return {t: pictures[(norm, key)][t] for t in self.points(chain, key)}
            return {t: fresh() for t in self.points(chain, key)}
        keep, see, frame = PERSISTENCE in on, OBSERVATION in on, FRAME in on
        out: dict[int, Any] = {}
        cur = None
        for t in self.points(chain, key):
            if cur is None:
                cur = fresh()
            elif not chain:
                ev = self.events[t - 1]
                if key in ev.changes:
                    # An event may set it, unless the frame rule says this kind cannot.
                    if not (frame and key in ev.unexplained):
                        cur = fresh()
                elif not keep:
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
    def build(self, axioms: Sequence[Axiom], *, pooled: int = 0) -> Tracked:
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
        return Tracked(self.terms, groups)


class Tracked:
    """A z3 solver holding an encoding's constraints, each group guarded by its literals.

    This is ``Solver.assert_and_track`` generalised to several literals per constraint (the
    facts it encodes and every axiom it needs): the literals are passed to ``check`` as
    assumptions, so the unsat core is a set of names.
    """

    def __init__(self, terms: Terms, groups: dict[tuple[str, ...], list[Any]]) -> None:
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
            assert_raw(terms, self.solver, body)

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
        result = check_raw(self.terms, self.solver, lits)
        if result is None:
            raise BeliefGraphError(
                f"z3 could not decide consistency ({self.solver.reason_unknown()}); "
                "switch off an axiom or check a smaller graph"
            )
        return result

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


def key_test(p: Proposition) -> tuple[Key, Test, Form] | None:
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


def var_test(var: tuple[str, ...], value: object) -> tuple[Key, Test, Form] | None:
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


def ended(test: Test) -> Test | None:
    """What a reveal of "no longer so" says: the opposite of the proposition's test."""
    op, value = test
    if op == "eq":
        return ("ne", value)
    return ("is", not value) if op == "is" else None


def gates(form: Form, test: Test, belief: bool) -> tuple[str, ...]:
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
