"""Trust policies: whether a hearer adopts what a speaker tells them.

A policy is a small pydantic object with one method, ``weigh``, registered under a name in
``beliefgraph.registry.trust_policies`` so a run can be rebuilt from its settings. Three ship:

- ``default`` (``beliefgraph.trust.fresher_evidence.v1``): a hearer believes a speaker unless
  the claim contradicts what the hearer perceived and the speaker had no chance to see
  anything newer: since the hearer's last look, the speaker was never in the object's room
  while the hearer was away from it. A claim that only repeats, or replaces hearsay, is
  believed.
- ``dialogue`` (``beliefgraph.trust.dialogue_edge.v1``): a hearer weighs a claim by its trust
  edge toward the speaker in force at the time (DialToM's recipient → initiator edge).
- ``hitom`` (``beliefgraph.trust.hitom_exit_order.v1``): Hi-ToM's stated rule, an agent trusts
  a teller who left the room later than itself and distrusts one who left earlier; a telling
  updates only orders 1 and 2, and only hearers model hearers' adoption when they are the
  teller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

from pydantic import Field

from beliefgraph.models import BeliefModel, Event, Proposition, TrustEdge
from beliefgraph.registry import trust_policies

if TYPE_CHECKING:
    from .perception import Timeline
    from .propagation import Segment

__all__ = ["EdgeTrust", "ExitOrderTrust", "FresherEvidenceTrust", "TrustPolicy"]


@runtime_checkable
class TrustPolicy(Protocol):
    """How much ``hearer`` trusts ``speaker``'s claim, in [0, 1]; adopted at ``threshold``."""

    name: str
    threshold: float
    max_depth: int | None
    bystanders_model_hearers: bool

    def weigh(
        self,
        hearer: str,
        speaker: str,
        claim: Proposition,
        tell: Event,
        current: Segment | None,
        timeline: Timeline,
    ) -> float:
        """Trust in [0, 1]. ``current`` is the hearer's belief (as modelled) before the tell.

        A function of its arguments: propagation computes it once per hearer, telling and
        ``current`` and shares the result between holder chains.
        """
        ...


class FresherEvidenceTrust(BeliefModel):
    """Believe the speaker unless your own look at the object is known to be fresher.

    Examples
    --------
    >>> FresherEvidenceTrust().name
    'default'
    """

    name: Literal["default"] = "default"
    threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    """Adopt the claim when trust reaches this."""
    max_depth: int | None = None
    """The deepest holder chain a telling updates (None = any order)."""
    bystanders_model_hearers: bool = True
    """A third listener infers that each hearer adopts the claim (when that hearer would)."""

    def weigh(
        self,
        hearer: str,
        speaker: str,
        claim: Proposition,
        tell: Event,
        current: Segment | None,
        timeline: Timeline,
    ) -> float:
        if current is None or current.source in ("testimony", "default"):
            return 1.0
        if current.value == claim.assigned:
            return 1.0
        room = timeline.container_rooms.get(str(current.value))
        last_look = current.provenance[-1]
        for step in timeline.steps[last_look : tell.id - 1]:
            if step.rooms.get(hearer) != room and step.rooms.get(speaker) == room:
                return 1.0  # the speaker was there while the hearer was not
        return 0.0


class ExitOrderTrust(BeliefModel):
    """Hi-ToM: trust a teller who left the object's room later than you did.

    Examples
    --------
    >>> ExitOrderTrust().max_depth
    2
    """

    name: Literal["hitom"] = "hitom"
    threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    max_depth: int | None = 2
    bystanders_model_hearers: bool = False

    def weigh(
        self,
        hearer: str,
        speaker: str,
        claim: Proposition,
        tell: Event,
        current: Segment | None,
        timeline: Timeline,
    ) -> float:
        where = current.value if current is not None else None
        if where is None:
            where = timeline.world_at(tell.id - 1).get((claim.subject, "in"))
        room = timeline.container_rooms.get(str(where))
        return _exit_order(hearer, speaker, room, tell.id, timeline)


def _exit_order(hearer: str, speaker: str, room: str | None, t: int, timeline: Timeline) -> float:
    """1.0 when the speaker left ``room`` after the hearer did (exit order is public)."""
    never = 10**9  # still in the room: has seen everything there so far
    h = timeline.last_exit(hearer, room, t) or never
    s = timeline.last_exit(speaker, room, t) or never
    return 1.0 if s > h else 0.0


@trust_policies.register("default")
def make_default_trust(**settings: object) -> FresherEvidenceTrust:
    return FresherEvidenceTrust.model_validate(settings)


@trust_policies.register("hitom")
def make_hitom_trust(**settings: object) -> ExitOrderTrust:
    return ExitOrderTrust.model_validate(settings)


trust_policies.register("beliefgraph.trust.fresher_evidence.v1", func=make_default_trust)
trust_policies.register("beliefgraph.trust.hitom_exit_order.v1", func=make_hitom_trust)


class EdgeTrust(BeliefModel):
    """Trust policy: a hearer weighs a speaker's claim by the edge hearer → speaker in force.

    Without an edge the hearer trusts at ``default``.

    Examples
    --------
    >>> tell = Event(id=2, kind="tell", actors=("Ann",))
    >>> p = EdgeTrust(edges=(TrustEdge(truster="Bob", trustee="Ann", weight=0.1),))
    >>> p.weigh("Bob", "Ann", Proposition(content_type="Emotion", subject="Ann",
    ...         relation="be", value="happy"), tell, None, None)
    0.1
    """

    name: Literal["dialogue"] = "dialogue"
    edges: tuple[TrustEdge, ...] = ()
    """The dialogue's trust edges, any order."""
    default: float = Field(default=1.0, ge=0.0, le=1.0)
    """The trust of a hearer who has no edge toward the speaker."""
    threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    """Adopt a claim when the weight reaches this."""
    max_depth: int | None = None
    bystanders_model_hearers: bool = True

    def edge(self, truster: str, trustee: str, at: int) -> TrustEdge | None:
        """The edge truster → trustee in force at time ``at`` (the latest to start)."""
        found = [
            e
            for e in self.edges
            if e.truster == truster and e.trustee == trustee and e.holds_at(at)
        ]
        return max(found, key=lambda e: e.start) if found else None

    def weigh(
        self,
        hearer: str,
        speaker: str,
        claim: Proposition,
        tell: Event,
        current: Segment | None,
        timeline: Timeline | None = None,
    ) -> float:
        e = self.edge(hearer, speaker, tell.id)
        return e.weight if e is not None else self.default


@trust_policies.register("dialogue")
def make_edge_trust(**settings: object) -> EdgeTrust:
    """Build the dialogue trust policy from its settings (edges included)."""
    return EdgeTrust.model_validate(settings)


trust_policies.register("beliefgraph.trust.dialogue_edge.v1", func=make_edge_trust)
