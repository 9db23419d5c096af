"""A directed, time-stamped trust edge: how much one actor trusts another, and why."""

from typing import Literal

from pydantic import Field

from .base import BeliefModel

__all__ = ["TRUST_LEVELS", "TrustEdge", "TrustLevel", "trust_level"]

TrustLevel = Literal["distrust", "doubt", "neutral", "partial trust", "trust"]
TRUST_LEVELS: tuple[str, ...] = ("distrust", "doubt", "neutral", "partial trust", "trust")


class TrustEdge(BeliefModel):
    """``truster`` trusts ``trustee`` at ``level`` from time ``start`` (until ``end``).

    Directed and time-stamped: DialToM's edge runs recipient → initiator, one per context
    window, and testimony from the trustee enters the truster's beliefs by its ``weight``.

    Examples
    --------
    >>> e = TrustEdge(truster="client", trustee="counselor", start=1, weight=0.9,
    ...               reasons=('turn 3 (client): "thank you" (+)',))
    >>> e.level, e.holds_at(5)
    ('trust', True)
    """

    truster: str = Field(min_length=1)
    """Who trusts (the hearer whose beliefs the edge gates)."""
    trustee: str = Field(min_length=1)
    """Who is trusted (the speaker whose testimony is weighed)."""
    start: int = Field(default=1, ge=0)
    """The first time step (event id) the edge applies to."""
    end: int | None = None
    """The time step from which a newer edge replaces it; None = to the end."""
    weight: float = Field(ge=0.0, le=1.0)
    """How much the truster trusts the trustee: 0 = distrust, 0.5 = neutral, 1 = trust."""
    window: str | None = None
    """The context window the edge was read from (DialToM's record id, "5, 2")."""
    reasons: tuple[str, ...] = ()
    """The cues behind the weight, each naming its turn."""
    provenance: tuple[int, ...] = ()
    """Event ids of the cue turns, oldest first."""

    @property
    def level(self) -> TrustLevel:
        """The weight as a label from ``distrust`` to ``trust``."""
        return trust_level(self.weight)

    def holds_at(self, t: int) -> bool:
        """Whether the edge is in force at time ``t``."""
        return self.start <= t and (self.end is None or t < self.end)


def trust_level(weight: float) -> TrustLevel:
    """The label of a trust weight (fifths of [0, 1]).

    Examples
    --------
    >>> [trust_level(w) for w in (0.0, 0.3, 0.5, 0.7, 1.0)]
    ['distrust', 'doubt', 'neutral', 'partial trust', 'trust']
    """
    index = min(int(weight * 5), 4)
    return TRUST_LEVELS[index]  # type: ignore[return-value]
