"""Reference beliefs for the property tests: propagation and labelling as they were before
beliefs were shared between chains (verbatim copies of ``solvers/propagation.py`` and
``beliefgraph/labelling.py`` at that point), run over every chain with no pruning.

The library computes each chain's beliefs once per distinct perception and shares them;
``reference_beliefs`` computes every chain on its own, so the two can be compared
(``tests/test_belief_sharing.py``). Kept in the tests, not in the library: it is the slow,
obvious reading, not a second way to do the job.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from typing import Literal

from beliefgraph.graph import BeliefGraph
from beliefgraph.models import (
    Belief,
    Context,
    KnowledgeAccess,
    MentalSource,
    Proposition,
    TruthStatus,
)
from beliefgraph.solvers.perception import Step, Timeline, Value, Variable
from beliefgraph.solvers.trust import TrustPolicy

Source = Literal["narration", "perception", "default", "stated", "testimony"]


def reference_beliefs(graph: BeliefGraph, max_order: int) -> list[Belief]:
    """Every chain's beliefs up to ``max_order`` (world facts first), each chain on its own."""
    prop = ReferencePropagator(graph.timeline, graph.trust)
    cast = frozenset(
        a for a in graph.actors if any(a in s.perceivers for s in graph.timeline.steps)
    )
    out: list[Belief] = []
    for chain in graph.chains(max_order):
        for var in graph.variables:
            asserted = [
                b for b in graph.asserted if b.holders == chain and b.proposition.variable == var
            ]
            derived = [reference_belief(chain, s, prop, cast) for s in prop.segments(chain, var)]
            out.extend(sorted(derived + asserted, key=lambda b: b.start))
    return out


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


class ReferencePropagator:
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
        self._raw: dict[tuple[tuple[str, ...], Variable], list[Segment]] = {}
        self._split: dict[tuple[tuple[str, ...], Variable], list[Segment]] = {}
        self._starts: dict[tuple[tuple[str, ...], Variable], list[int]] = {}
        self._sharing: dict[tuple[Variable, Value, int, frozenset[str]], frozenset[str]] = {}
        self._touching: dict[Variable, list[Step]] | None = None
        self._changing: dict[Variable, list[Step]] | None = None

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
        if not chain:
            return True
        members = frozenset(chain)
        return any(
            members <= step.perceivers or _assumes_heard(chain, step) for step in self.touching(var)
        )

    @property
    def end(self) -> int:
        return len(self.timeline.steps)

    def segments(self, chain: tuple[str, ...], var: Variable) -> list[Segment]:
        """The chain's beliefs about ``var`` over time, stale stretches split off as memory."""
        key = (chain, var)
        found = self._split.get(key)
        if found is None:
            found = self._split[key] = self._with_memory(chain, var)
            self._starts[key] = [seg.start for seg in found]
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
        key = (chain, var)
        if key in self._raw:
            return self._raw[key]
        if not chain:
            self._raw[key] = self._world(var)
            return self._raw[key]
        segs: list[Segment] = []
        members = frozenset(chain)
        for step in self.touching(var):  # no other step shows or tells anything about var
            if not members <= step.perceivers and not _assumes_heard(chain, step):
                continue
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
        self._raw[key] = segs
        return segs

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
        if (
            cur is not None
            and cur.source not in ("testimony", "default")
            and cur.value == claim.assigned
        ):
            # Hearing what you saw for yourself confirms it: the belief keeps your own look as
            # its source, so a later telling is weighed against that look, not against a tale.
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
    def _with_memory(self, chain: tuple[str, ...], var: Variable) -> list[Segment]:
        """Flag beliefs that went stale: the thing they are about changed unseen.

        That thing is the world for order 1 and the inner holder's belief for deeper orders.
        A belief is one segment from the event that formed it to the event that changed it;
        whether it is now a memory is a label (``labelling``), not a new belief.
        """
        raw = self._raw_segments(chain, var)
        if not chain:
            return raw
        reference = self.segments(chain[1:], var)
        out: list[Segment] = []
        for seg in raw:
            stale = any(
                seg.start < ref.start
                and (seg.end is None or ref.start < seg.end)
                and ref.value != seg.value
                and _true_before(reference, seg.value, ref.start)
                for ref in reference
            )
            out.append(replace(seg, stale=True) if stale else seg)
        return out

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


def _true_before(reference: list[Segment], value: Value, t: int) -> bool:
    """Whether the reference held ``value`` just before time ``t``."""
    for seg in reference:
        if seg.holds_at(t - 1):
            return seg.value == value
    return False


def _with_value(prop: Proposition, value: Value) -> Proposition:
    if isinstance(value, bool):
        return prop.model_copy(update={"negated": not value})
    return prop.model_copy(update={"value": value})


_SOURCES: dict[str, MentalSource] = {
    "narration": "Narration",
    "perception": "Perception",
    "default": "Inference",
    "stated": "Unknown",  # the narrator says what they think, not how they came to think it
    "testimony": "Testimony",
}


def reference_belief(
    chain: tuple[str, ...],
    seg: Segment,
    propagator: ReferencePropagator,
    cast: frozenset[str],
) -> Belief:
    """Label ``seg``, the belief of ``chain``, on every dimension.

    ``cast`` is the set of actors physically in the story (those who can perceive), which
    decides when knowledge is Public.
    """
    timeline = propagator.timeline
    var = seg.proposition.variable
    when = (seg.end - 1) if seg.end is not None else propagator.end
    ref = propagator.at(chain[1:], var, when) if chain else seg
    truth: TruthStatus = (
        "Unknown" if ref is None else ("True" if ref.value == seg.value else "False")
    )
    source: MentalSource = _SOURCES[seg.source]
    if len(chain) >= 2 and seg.source in ("perception", "default"):
        source = "Inference"  # beliefs about beliefs are inferred from co-presence
    elif (
        len(chain) == 1
        and seg.source == "perception"
        and (seg.stale or propagator.departed(chain[0], seg, when))
    ):
        source = "Memory"  # it rests on a look the holder can no longer repeat
    context: Context = "Neutral"
    if propagator.is_lie(seg):
        context = "Deceptive"
    elif seg.stale or (seg.end is not None and seg.proposition.content_type != "Action/Event"):
        context = "Temporal"  # outdated, or a past state the holder saw change
    return Belief(
        holders=chain,
        proposition=seg.proposition,
        start=seg.start,
        end=seg.end,
        truth_status=truth,
        knowledge_access=_access(chain, seg, propagator, timeline, cast, when),
        representation="Explicit"
        if seg.source in ("narration", "testimony", "stated") and _stated(seg, timeline)
        else "Implicit",
        mental_source=source,
        context=context,
        trust=seg.trust,
        source_actor=seg.speaker,
        provenance=seg.provenance,
    )


def _stated(seg: Segment, timeline: Timeline) -> bool:
    """Whether the text states what produced the segment (not merely implies it)."""
    return not seg.provenance or timeline.steps[seg.provenance[0] - 1].event.stated


def _access(
    chain: tuple[str, ...],
    seg: Segment,
    propagator: ReferencePropagator,
    timeline: Timeline,
    cast: frozenset[str],
    when: int,
) -> KnowledgeAccess:
    """Private, Shared or Public: who perceived the source and still holds the same value."""
    witnesses = timeline.steps[seg.provenance[0] - 1].perceivers & cast if seg.provenance else set()
    if not chain:
        if not witnesses or witnesses >= cast:
            return "Public"
        return "Private" if len(witnesses) == 1 else "Shared"
    var = seg.proposition.variable
    sharing = set(propagator.sharing(var, seg.value, when, frozenset(witnesses)))
    # A belief about where another actor is, or what they did, is not shared with that actor
    # by their being there: the others present are who could hold it too (OmniToM App. E).
    about = seg.proposition.subject
    if about in cast and about not in chain and seg.proposition.content_type in _ABOUT_ACTORS:
        sharing.discard(about)
        cast = cast - {about}
    if len(chain) >= 2 or len(sharing) <= 1:
        return "Private"
    return "Public" if sharing >= cast else "Shared"


_ABOUT_ACTORS = frozenset({"Location", "Action/Event"})
