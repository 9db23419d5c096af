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
per telling, not revised later.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from typing import Literal

from beliefgraph.models import Proposition

from .perception import Step, Timeline, Value, Variable
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


def normalise_chain(chain: tuple[str, ...]) -> tuple[str, ...]:
    """Collapse repeats: "A believes A believes p" is "A believes p" (introspection).

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
        self._split: dict[tuple[tuple[str, ...], Variable], list[Segment]] = {}
        self._starts: dict[tuple[tuple[str, ...], Variable], list[int]] = {}
        # Shared results: raw segments by what a chain perceived (``_perception_key``), and
        # memory-flagged ones by the identity of their raw list and of the inner chain's list.
        self._raw: dict[tuple[object, ...], list[Segment]] = {}
        self._memory: dict[tuple[int, int], tuple[list[Segment], list[int]]] = {}
        self._flagged: dict[tuple[int, tuple[int, ...]], tuple[list[Segment], list[int]]] = {}
        self._change_index: dict[int, tuple[list[int], list[Value]]] = {}
        self._pool: dict[Segment, Segment] = {}
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

    def _passed(self, chain: tuple[str, ...], var: Variable) -> int:
        """The steps of ``touching(var)`` that reach ``chain``, as a bit set (bit i: step i).

        A step reaches a chain that all perceived it, or whose last link is a telling's
        addressee the rest of the chain saw being told (``_assumes_heard``).
        """
        seen = self._seen_of(var)
        mask = seen.all
        by_actor = seen.by_actor
        for a in chain[:-1]:
            mask &= by_actor.get(a, 0)
        passed = mask & by_actor.get(chain[-1], 0)
        if len(chain) >= 2:
            passed |= mask & seen.addressed.get((chain[-2], chain[-1]), 0)
        return passed

    def _perception_key(self, chain: tuple[str, ...], var: Variable) -> tuple[object, ...]:
        """What ``_raw_segments`` reads of ``chain``: equal keys give equal segments.

        The steps that reach the chain, and for each telling among them the chain's part in it
        (``_testimony`` reads no more): whether the chain is too deep for testimony, whether
        its last link is the speaker (then who the speaker told and what that one believed
        just before), a hearer of the speaker, a bystander, or outside the telling.
        """
        passed = self._passed(chain, var)
        seen = self._seen_of(var)
        tells = passed & seen.tells
        if not tells:
            return (var, passed)
        policy = self.policy
        if policy.max_depth is not None and len(chain) > policy.max_depth:
            return (var, passed)  # no telling reaches a chain this deep
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
        """The chain's beliefs about ``var`` over time, stale stretches split off as memory."""
        key = (chain, var)
        found = self._split.get(key)
        if found is None:
            found, self._starts[key] = self._with_memory(chain, var)
            self._split[key] = found
        return found

    def at(self, chain: tuple[str, ...], var: Variable, t: int | None = None) -> Segment | None:
        """The chain's belief about ``var`` at time ``t`` (default: the story's end)."""
        t = self.end if t is None else t
        segs = self.segments(chain, var)
        # A chain's segments follow one another without overlapping (each new one ends the
        # last), so the one that may hold at t is the last to start by t.
        i = bisect.bisect_right(self._starts[(chain, var)], t) - 1
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
        key = self._perception_key(chain, var) if chain else (var,)
        found = self._raw.get(key)
        if found is None:
            found = self._raw[key] = self._derive(chain, var) if chain else self._world(var)
        return found

    def _derive(self, chain: tuple[str, ...], var: Variable) -> list[Segment]:
        segs: list[Segment] = []
        steps = self._seen_of(var).steps
        passed = self._passed(chain, var)
        while passed:  # no other step shows or tells anything about var that reaches chain
            low = passed & -passed
            passed ^= low
            step = steps[low.bit_length() - 1]
            cur = segs[-1] if segs else None
            if cur is not None and cur.end is not None:
                cur = None  # the last belief was seen to end
            new = self._perceive(step, var, cur)
            if step.event.kind == "tell":
                new = self._testimony(chain, var, step, cur) or new
            if new is None:
                continue
            if new.value is None:  # seen to stop holding (someone left the room)
                if cur is not None:
                    segs[-1] = _ending(cur, new.start)
                continue
            if cur is not None and cur.value == new.value and cur.source == new.source:
                segs[-1] = Segment(
                    cur.start,
                    cur.end,
                    cur.value,
                    cur.proposition,
                    cur.source,
                    (*cur.provenance, *new.provenance),
                    cur.trust,
                    cur.speaker,
                    cur.stale,
                )
                continue
            if cur is not None:
                segs[-1] = _ending(cur, new.start)
            segs.append(new)
        return [self._intern(seg) for seg in segs]

    def _intern(self, seg: Segment) -> Segment:
        """One object per distinct segment: chains that saw different steps still mostly
        form equal beliefs, and the graph labels each object once (``BeliefGraph``)."""
        return self._pool.setdefault(seg, seg)

    @staticmethod
    def _perceive(step: Step, var: Variable, cur: Segment | None) -> Segment | None:
        """What ``step`` shows about ``var``; a segment whose value is None ends the belief."""
        found: Segment | None = None
        t = step.event.id
        for r in step.reveals:
            if r.variable != var:
                continue
            if r.mode == "default" and cur is not None and cur.source != "default":
                continue  # a label's promise does not override what was seen
            source: Source = "perception" if r.mode == "perceive" else r.mode
            found = Segment(t, None, r.value, r.proposition, source, (t,))  # type: ignore[arg-type]
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
            w = policy.weigh(chain[-2], speaker, claim, e, prev_state, self.timeline)
            return adopt(w) if w >= policy.threshold else None
        if last not in hearers:
            return None
        if len(chain) >= 2 and chain[-2] == speaker:
            return adopt(None)  # the teller takes every hearer to believe it
        if len(chain) >= 2 and not policy.bystanders_model_hearers:
            return None
        w = policy.weigh(last, speaker, claim, e, cur, self.timeline)
        return adopt(w) if w >= policy.threshold else None

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

    @classmethod
    def of(cls, steps: list[Step], var: Variable) -> _Seen:
        by_actor: dict[str, int] = {}
        addressed: dict[tuple[str, str], int] = {}
        hearers: dict[int, frozenset[str]] = {}
        tells = 0
        for i, step in enumerate(steps):
            bit = 1 << i
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
                hearers[e.id] = frozenset(e.hearers) if e.hearers else step.perceivers - {e.agent}
        return cls(steps, (1 << len(steps)) - 1, by_actor, tells, addressed, hearers)


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
        return prop.model_copy(update={"negated": not value})
    return prop.model_copy(update={"value": value})
