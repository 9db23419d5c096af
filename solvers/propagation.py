"""Propagate perception and testimony to beliefs of any order, lazily.

A holder chain ``(A, B, C)`` reads "A believes B believes C believes". Its belief about a
variable changes only at an event that every member of the chain perceived (co-presence is
mutual: each sees the others see it), or at a telling that reaches the chain under the
trust policy. Everything else is memory: the chain keeps what it had, and where the thing it
is about has changed unseen, the belief turns stale (source Memory, context Temporal).

Chains are computed on demand and memoised, so the cost grows with the questions asked, not
with actors ** order. The same chain and variable always give the same result. Chains that
perceived the same steps about a variable (and stand in the same relation to its tellings)
share one computed list of segments: in a room of six, most of the 750 order-4 chains see
exactly what the others see, so they are computed once, not 750 times.

Limits: actors are assumed to perceive an event completely or not at all; trust is judged
per telling, not revised later, by a policy whose ``weigh`` depends on its arguments only
(its results are shared between chains).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from beliefgraph.models import Event, Proposition

from .perception import Reveal, Step, Timeline, Value, Variable
from .trust import TrustPolicy

__all__ = ["Propagator", "Segment", "normalise_chain"]

Source = Literal["narration", "perception", "default", "stated", "testimony"]


@dataclass(frozen=True, slots=True)
class Segment:
    """A stretch of time over which a chain holds one value for one variable."""

    start: int
    end: int | None
    value: Value
    proposition: Proposition
    source: Source
    provenance: tuple[int, ...]
    trust: float | None = None
    speaker: str | None = None
    stale: bool = False
    """The world (or the inner holder) moved on without the chain seeing it."""

    def holds_at(self, t: int) -> bool:
        return self.start <= t and (self.end is None or t < self.end)


@lru_cache(maxsize=1 << 16)
def normalise_chain(chain: tuple[str, ...]) -> tuple[str, ...]:
    """Collapse repeats: "A believes A believes p" is "A believes p" (introspection).

    Remembered per chain: the checker asks it of the same few thousand chains a million
    times on a long story.

    Examples
    --------
    >>> normalise_chain(("A", "A", "B", "B"))
    ('A', 'B')
    """
    out: list[str] = []
    for a in chain:
        if not out or out[-1] != a:
            out.append(a)
    return tuple(out)


class Propagator:
    """Beliefs of every chain about every variable, computed when first asked for.

    Parameters
    ----------
    timeline : Timeline
        The replayed story (``perception.simulate``).
    policy : TrustPolicy
        Decides whether hearers adopt what they are told.
    """

    def __init__(self, timeline: Timeline, policy: TrustPolicy) -> None:
        self.timeline = timeline
        self.policy = policy
        # (chain, variable) -> its segments and their start times
        self._split: dict[tuple[tuple[str, ...], Variable], tuple[list[Segment], list[int]]] = {}
        # Shared results: raw segments by what a chain perceived (``_perception_key``), and
        # memory-flagged ones by the identity of their raw list and of the inner chain's list.
        self._raw: dict[tuple[object, ...], list[Segment]] = {}
        self._raw_by_links: dict[tuple[object, ...], list[Segment]] = {}
        self._memory: dict[tuple[int, int], tuple[list[Segment], list[int]]] = {}
        self._flagged: dict[tuple[int, tuple[int, ...]], tuple[list[Segment], list[int]]] = {}
        self._change_index: dict[int, tuple[list[int], list[Value]]] = {}
        self._pool: dict[tuple[object, ...], Segment] = {}
        self._weights: dict[tuple[str, int, Segment | None], float] = {}
        self._sharing: dict[tuple[Variable, Value, int, frozenset[str]], frozenset[str]] = {}
        self._touching: dict[Variable, list[Step]] | None = None
        self._changing: dict[Variable, list[Step]] | None = None
        self._seen: dict[Variable, _Seen] = {}

    # -- which events concern a variable ---------------------------------------------------
    def touching(self, var: Variable) -> list[Step]:
        """The steps that can change a chain's belief about ``var``: those that show it
        (reveal it) or tell about it, in time order. Every other step leaves it as it was,
        so a chain's beliefs are read off these alone."""
        if self._touching is None:
            self._index()
        assert self._touching is not None
        return self._touching.get(var, [])

    def _index(self) -> None:
        touching: dict[Variable, list[Step]] = {}
        changing: dict[Variable, list[Step]] = {}
        for step in self.timeline.steps:
            seen: set[Variable] = {r.variable for r in step.reveals}
            e = step.event
            if e.kind == "tell" and e.proposition is not None:
                seen.add(e.proposition.variable)
            for var in seen:
                touching.setdefault(var, []).append(step)
            for var in step.changed:
                changing.setdefault(var, []).append(step)
        self._touching, self._changing = touching, changing

    def may_believe(self, chain: tuple[str, ...], var: Variable) -> bool:
        """Whether ``chain`` can hold any belief about ``var``: all its members perceived a
        step that shows or tells it (or, for a speaker's addressee, were assumed to).

        A cheap test that never says no to a chain that has a belief; ``beliefs`` uses it to
        prune the chains it lists (actors ** order) to those who perceived something.
        """
        return not chain or self._passed(chain, var) != 0

    def _seen_of(self, var: Variable) -> _Seen:
        seen = self._seen.get(var)
        if seen is None:
            seen = self._seen[var] = _Seen.of(self.touching(var), var)
        return seen

    def _passed(self, chain: tuple[str, ...], var: Variable, seen: _Seen | None = None) -> int:
        """The steps of ``touching(var)`` that reach ``chain``, as a bit set (bit i: step i).

        A step reaches a chain that all perceived it, or whose last link is a telling's
        addressee the rest of the chain saw being told (``_assumes_heard``).
        """
        if seen is None:
            seen = self._seen_of(var)
        mask = seen.all
        by_actor = seen.by_actor
        for a in chain[:-1]:
            mask &= by_actor.get(a, 0)
        passed = mask & by_actor.get(chain[-1], 0)
        if len(chain) >= 2:
            passed |= mask & seen.addressed.get((chain[-2], chain[-1]), 0)
        return passed

    def _perception_key(
        self, chain: tuple[str, ...], var: Variable, passed: int
    ) -> tuple[object, ...]:
        """What ``_raw_segments`` reads of ``chain``: equal keys give equal segments.

        The steps that reach the chain, and for each telling among them the chain's part in it
        (``_testimony`` reads no more): whether the chain is too deep for testimony, whether
        its last link is the speaker (then who the speaker told and what that one believed
        just before), a hearer of the speaker, a bystander, or outside the telling.
        """
        seen = self._seen_of(var)
        tells = passed & seen.tells
        if not tells or self._too_deep(chain):  # no telling reaches a chain this deep
            return (var, passed)
        policy = self.policy
        roles: list[object] = []
        last = chain[-1]
        before = chain[-2] if len(chain) >= 2 else None
        while tells:
            low = tells & -tells
            tells ^= low
            step = seen.steps[low.bit_length() - 1]
            e = step.event
            hearers = seen.hearers[e.id]
            if last == e.agent:
                if before is None or before not in hearers:
                    roles.append(None)
                else:
                    roles.append(("told", before, self.at(chain[:-1], var, e.id - 1)))
            elif last not in hearers:
                roles.append(None)
            elif before is not None and before == e.agent:
                roles.append("teller's hearer")
            elif before is not None and not policy.bystanders_model_hearers:
                roles.append(None)
            else:
                roles.append(("hearer", last))
        return (var, passed, tuple(roles))

    @property
    def end(self) -> int:
        return len(self.timeline.steps)

    def segments(self, chain: tuple[str, ...], var: Variable) -> list[Segment]:
        """The chain's beliefs about ``var`` over time, each span flagged stale when it went so.

        The list is shared with every chain that holds the same beliefs: read it, do not
        change it.
        """
        found = self._split.get((chain, var))
        if found is None:
            found = self._split[(chain, var)] = self._with_memory(chain, var)
        return found[0]

    def at(self, chain: tuple[str, ...], var: Variable, t: int | None = None) -> Segment | None:
        """The chain's belief about ``var`` at time ``t`` (default: the story's end)."""
        t = self.end if t is None else t
        found = self._split.get((chain, var))
        if found is None:
            found = self._split[(chain, var)] = self._with_memory(chain, var)
        segs, starts = found
        # A chain's segments follow one another without overlapping (each new one ends the
        # last), so the one that may hold at t is the last to start by t.
        i = bisect.bisect_right(starts, t) - 1
        if i >= 0 and segs[i].holds_at(t):
            return segs[i]
        return None

    # -- order 0 -------------------------------------------------------------------------
    def _world(self, var: Variable) -> list[Segment]:
        segs: list[Segment] = []
        prop = self.timeline.propositions.get(var)
        if self._changing is None:
            self._index()
        assert self._changing is not None
        for step in self._changing.get(var, []):
            t = step.event.id
            if segs and segs[-1].end is None:  # one that already ended (an exit) stays ended
                segs[-1] = _ending(segs[-1], t)
            if var in step.world and prop is not None:
                value = step.world[var]
                segs.append(Segment(t, None, value, _with_value(prop, value), "narration", (t,)))
        return segs

    # -- order >= 1 ------------------------------------------------------------------------
    def _raw_segments(self, chain: tuple[str, ...], var: Variable) -> list[Segment]:
        """The chain's beliefs about ``var`` as it formed them, before memory is flagged;
        one list shared by every chain with the same ``_perception_key``."""
        if not chain:
            found = self._raw.get((var,))
            if found is None:
                found = self._raw[(var,)] = self._world(var)
            return found
        # Unless the chain's last link told something here, its part in every telling follows
        # from its last two links (``_perception_key``): a cheaper key in front of that one.
        seen = self._seen_of(var)
        passed = self._passed(chain, var, seen)
        quick = None
        if not passed & seen.tells & seen.told_by.get(chain[-1], 0):
            depth = self.policy.max_depth
            quick = (var, passed, chain[-2:], depth is not None and len(chain) > depth)
            found = self._raw_by_links.get(quick)
            if found is not None:
                return found
        key = self._perception_key(chain, var, passed)
        found = self._raw.get(key)
        if found is None:
            found = self._raw[key] = self._derive(chain, var)
        if quick is not None:
            self._raw_by_links[quick] = found
        return found

    def _too_deep(self, chain: tuple[str, ...]) -> bool:
        depth = self.policy.max_depth
        return depth is not None and len(chain) > depth

    def _derive(self, chain: tuple[str, ...], var: Variable) -> list[Segment]:
        """Replay the steps that reach ``chain``: each shows or tells a value, which starts a
        segment, extends the open one (same value, same source) or ends it.

        The open segment stays mutable (``_Open``) until it closes, and becomes a ``Segment``
        only for a telling's trust policy: most steps only extend it, and building two frozen
        segments a step was a third of listing a long story's beliefs.
        """
        segs: list[Segment] = []
        seen = self._seen_of(var)
        steps, shown, tells = seen.steps, seen.shown, seen.tells
        passed = self._passed(chain, var)
        cur: _Open | None = None  # the open belief; None when there is none, or it ended
        while passed:  # no other step shows or tells anything about var that reaches chain
            low = passed & -passed
            passed ^= low
            i = low.bit_length() - 1
            step = steps[i]
            t = step.event.id
            new: _Open | None = None
            for r in shown[i]:
                if r.mode == "default" and cur is not None and cur.source != "default":
                    continue  # a label's promise does not override what was seen
                source: Source = "perception" if r.mode == "perceive" else r.mode
                new = _Open(t, r.value, r.proposition, source, [t], None, None)
            if tells & low:
                told = self._testimony(chain, var, step, cur and cur.segment(None))
                if told is not None:
                    new = _Open(t, told.value, told.proposition, "testimony", [t],
                                told.trust, told.speaker)  # fmt: skip
            if new is None:
                continue
            if new.value is None:  # seen to stop holding (someone left the room)
                if cur is not None:
                    segs.append(cur.segment(t))
                    cur = None
                continue
            if cur is not None and cur.value == new.value and cur.source == new.source:
                cur.provenance.append(t)
                continue
            if cur is not None:
                segs.append(cur.segment(t))
            cur = new
        if cur is not None:
            segs.append(cur.segment(None))
        return [self._intern(seg) for seg in segs]

    def _intern(self, seg: Segment) -> Segment:
        """One object per distinct segment: chains that saw different steps still mostly
        form equal beliefs, and the graph labels each object once (``BeliefGraph``).

        Keyed by the proposition's identity rather than its value: hashing a pydantic model
        costs more than the rest of the key, and the propositions come from a few shared
        reveals and claims (equal but distinct ones only share less).
        """
        key = (
            seg.start,
            seg.end,
            seg.value,
            id(seg.proposition),
            seg.source,
            seg.provenance,
            seg.trust,
            seg.speaker,
            seg.stale,
        )
        found = self._pool.get(key)
        if found is None:
            found = self._pool[key] = seg
        return found

    def _testimony(
        self, chain: tuple[str, ...], var: Variable, step: Step, cur: Segment | None
    ) -> Segment | None:
        e = step.event
        claim = e.proposition
        speaker = e.agent
        policy = self.policy
        if claim is None or speaker is None or claim.variable != var:
            return None
        if policy.max_depth is not None and len(chain) > policy.max_depth:
            return None
        hearers = set(e.hearers) if e.hearers else set(step.perceivers) - {speaker}
        t = e.id
        last = chain[-1]

        def adopt(trust: float | None) -> Segment:
            return Segment(t, None, claim.assigned, claim, "testimony", (t,), trust, speaker)

        if last == speaker:
            if len(chain) == 1 or chain[-2] not in hearers:
                return None  # telling never changes the teller's own belief
            prev_state = self.at(chain[:-1], var, t - 1)
            w = self._weigh(chain[-2], speaker, claim, e, prev_state)
            return adopt(w) if w >= policy.threshold else None
        if last not in hearers:
            return None
        if len(chain) >= 2 and chain[-2] == speaker:
            return adopt(None)  # the teller takes every hearer to believe it
        if len(chain) >= 2 and not policy.bystanders_model_hearers:
            return None
        if (
            cur is not None
            and cur.source not in ("testimony", "default")
            and cur.value == claim.assigned
        ):
            # Hearing what you saw for yourself confirms it: the belief keeps your own look as
            # its source, so a later telling is weighed against that look, not against a tale.
            return None
        w = self._weigh(last, speaker, claim, e, cur)
        return adopt(w) if w >= policy.threshold else None

    def _weigh(
        self, hearer: str, speaker: str, claim: Proposition, tell: Event, current: Segment | None
    ) -> float:
        """The policy's trust of ``hearer`` in ``tell``, given what it believed before.

        Memoised: chains that share a history ask the same of the same telling, and a policy
        may read the timeline at length (who was where since the hearer last looked). A
        policy's ``weigh`` is a function of its arguments (``TrustPolicy``).
        """
        key = (hearer, tell.id, current)
        found = self._weights.get(key)
        if found is None:
            found = self._weights[key] = self.policy.weigh(
                hearer, speaker, claim, tell, current, self.timeline
            )
        return found

    def is_lie(self, seg: Segment) -> bool:
        """Whether ``seg`` came from a telling whose speaker believed otherwise at the time.

        Decided after propagation, never during it: two actors telling each other things
        would otherwise make their beliefs depend on each other in a cycle.
        """
        if seg.speaker is None or not seg.provenance:
            return False
        t = seg.provenance[0]
        own = self.at((seg.speaker,), seg.proposition.variable, t - 1)
        return own is not None and own.value != seg.proposition.assigned

    # -- memory and staleness -------------------------------------------------------------
    def _with_memory(
        self, chain: tuple[str, ...], var: Variable
    ) -> tuple[list[Segment], list[int]]:
        """Flag beliefs that went stale: the thing they are about changed unseen.

        That thing is the world for order 1 and the inner holder's belief for deeper orders.
        A belief is one segment from the event that formed it to the event that changed it;
        whether it is now a memory is a label (``labelling``), not a new belief. Returns the
        segments and their start times; chains with the same raw segments and the same inner
        chain's segments share one result.
        """
        raw = self._raw_segments(chain, var)
        if not raw:
            return _NOTHING
        reference = self.segments(chain[1:], var) if chain else None
        key = (id(raw), id(reference))  # both lists live as long as this propagator
        found = self._memory.get(key)
        if found is not None:
            return found
        stale: tuple[int, ...] = ()
        if reference:
            # A belief is stale when, after it formed and while it lasted, the reference
            # changed from its value to another one.
            starts, before = self._changes(reference)
            stale = tuple(
                k
                for k, seg in enumerate(raw)
                if seg.value
                in before[
                    bisect.bisect_right(starts, seg.start) : len(starts)
                    if seg.end is None
                    else bisect.bisect_left(starts, seg.end)
                ]
            )
        # One list per raw list and staleness, whatever the reference: chains whose inner
        # chains differ but flag the same beliefs share it, and so do the chains built on them.
        found = self._flagged.get((id(raw), stale))
        if found is None:
            out = list(raw)
            for k in stale:
                out[k] = self._intern(replace(raw[k], stale=True))
            found = self._flagged[(id(raw), stale)] = (out, [seg.start for seg in out])
        self._memory[key] = found
        return found

    def _changes(self, reference: list[Segment]) -> tuple[list[int], list[Value]]:
        """When ``reference`` changed from one value to another: the times, and the values
        it changed from (memoised by the list, which lives as long as this propagator)."""
        found = self._change_index.get(id(reference))
        if found is None:
            starts: list[int] = []
            before: list[Value] = []
            for i, ref in enumerate(reference):
                # The segments follow one another, so only the one before may hold just before.
                prev = reference[i - 1] if i else None
                held = prev.value if prev is not None and prev.holds_at(ref.start - 1) else None
                if held is not None and ref.value != held:
                    starts.append(ref.start)
                    before.append(held)
            found = self._change_index[id(reference)] = (starts, before)
        return found

    def sharing(self, var: Variable, value: Value, t: int, among: frozenset[str]) -> frozenset[str]:
        """The actors of ``among`` who believe ``var`` has ``value`` at ``t`` (memoised: every
        chain's belief from the same look asks the same of the same witnesses)."""
        key = (var, value, t, among)
        found = self._sharing.get(key)
        if found is None:
            found = self._sharing[key] = frozenset(
                a for a in among if (b := self.at((a,), var, t)) is not None and b.value == value
            )
        return found

    def departed(self, holder: str, seg: Segment, at: int) -> bool:
        """Whether ``holder`` has left the room where ``seg``'s thing is, by time ``at``.

        Only states have a place (locations and contents); a belief about an event does not.
        """
        p = seg.proposition
        if p.content_type not in ("Location", "Contents/Physical State"):
            return False
        rooms = self.timeline.container_rooms
        room = (
            rooms.get(str(seg.value), str(seg.value))
            if p.relation == "in"
            else rooms.get(p.subject)
        )
        if room is None:
            return False
        return self.timeline.room_of(holder, at) != room


class _Open:
    """A segment being replayed: extended in place until it closes (``Propagator._derive``)."""

    __slots__ = ("proposition", "provenance", "source", "speaker", "start", "trust", "value")

    def __init__(
        self,
        start: int,
        value: Value | None,
        proposition: Proposition,
        source: Source,
        provenance: list[int],
        trust: float | None,
        speaker: str | None,
    ) -> None:
        self.start, self.value, self.proposition, self.source = start, value, proposition, source
        self.provenance, self.trust, self.speaker = provenance, trust, speaker

    def segment(self, end: int | None) -> Segment:
        return Segment(
            self.start,
            end,
            self.value,  # type: ignore[arg-type]  # an open segment holds a value
            self.proposition,
            self.source,
            tuple(self.provenance),
            self.trust,
            self.speaker,
        )


_NOTHING: tuple[list[Segment], list[int]] = ([], [])
"""The segments of a chain that never perceived the variable (shared; never changed)."""


@dataclass(frozen=True, slots=True)
class _Seen:
    """Who perceived which of a variable's steps, as bit sets over ``steps`` (bit i: step i).

    A chain's steps are then the AND of its members' sets: a few integer operations instead
    of a subset test per step.
    """

    steps: list[Step]
    all: int
    by_actor: dict[str, int]
    tells: int
    """Tellings about the variable itself (the ones testimony can come from)."""
    addressed: dict[tuple[str, str], int]
    """(speaker, addressee) -> tellings addressed to them, which the addressee is assumed
    to have heard."""
    hearers: dict[int, frozenset[str]]
    """Event id of each telling -> its hearers (the addressees, else everyone else there)."""
    shown: list[tuple[Reveal, ...]]
    """For each step, what it reveals about the variable."""
    told_by: dict[str, int]
    """Speaker -> the tellings about the variable they made."""

    @classmethod
    def of(cls, steps: list[Step], var: Variable) -> _Seen:
        by_actor: dict[str, int] = {}
        addressed: dict[tuple[str, str], int] = {}
        hearers: dict[int, frozenset[str]] = {}
        tells = 0
        shown: list[tuple[Reveal, ...]] = []
        told_by: dict[str, int] = {}
        for i, step in enumerate(steps):
            bit = 1 << i
            shown.append(tuple(r for r in step.reveals if r.variable == var))
            for a in step.perceivers:
                by_actor[a] = by_actor.get(a, 0) | bit
            e = step.event
            if e.kind != "tell":
                continue
            for h in e.hearers:
                if e.agent is not None:
                    addressed[(e.agent, h)] = addressed.get((e.agent, h), 0) | bit
            claim = e.proposition
            if claim is not None and e.agent is not None and claim.variable == var:
                tells |= bit
                told_by[e.agent] = told_by.get(e.agent, 0) | bit
                hearers[e.id] = frozenset(e.hearers) if e.hearers else step.perceivers - {e.agent}
        everything = (1 << len(steps)) - 1
        return cls(steps, everything, by_actor, tells, addressed, hearers, shown, told_by)


def _assumes_heard(chain: tuple[str, ...], step: Step) -> bool:
    """A speaker takes its addressee to have heard, even when the addressee did not.

    Chain ``(..., speaker, addressee)`` is reached by a telling that everyone in it but the
    addressee perceived ("Leo told Mom ..., but Mom did not hear": Leo still thinks Mom knows).
    """
    e = step.event
    return (
        e.kind == "tell"
        and len(chain) >= 2
        and chain[-2] == e.agent
        and chain[-1] in e.hearers
        and frozenset(chain[:-1]) <= step.perceivers
    )


def _ending(seg: Segment, end: int) -> Segment:
    """``seg`` ending at ``end`` (``dataclasses.replace`` costs three times as much)."""
    return Segment(
        seg.start,
        end,
        seg.value,
        seg.proposition,
        seg.source,
        seg.provenance,
        seg.trust,
        seg.speaker,
        seg.stale,
    )


def _with_value(prop: Proposition, value: Value) -> Proposition:
    if isinstance(value, bool):
        return prop.replaced(negated=not value)
    return prop.replaced(value=value)
