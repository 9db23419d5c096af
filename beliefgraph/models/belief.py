"""A belief: who holds what, over which time span, typed on every OmniToM dimension."""

from pydantic import Field

from .base import BeliefModel
from .labels import ContentType, Context, KnowledgeAccess, MentalSource, Representation, TruthStatus
from .proposition import Proposition

__all__ = ["Belief"]


class Belief(BeliefModel):
    """``holders`` believe ``proposition`` from time ``start`` until ``end``.

    The holder chain reads outside-in: ``("Anne", "Sally")`` is "Anne believes Sally
    believes". The empty chain is a world fact (order 0).

    Examples
    --------
    >>> from beliefgraph.models import Proposition
    >>> p = Proposition(content_type="Location", subject="ball", relation="in", value="box")
    >>> b = Belief(holders=("Anne", "Sally"), proposition=p, start=3, truth_status="False",
    ...            knowledge_access="Private", representation="Implicit",
    ...            mental_source="Inference", context="Temporal", provenance=(3,))
    >>> b.order, b.content_type
    (2, 'Epistemic')
    """

    holders: tuple[str, ...]
    """The holder chain, outermost first; () for a world fact."""
    proposition: Proposition
    """What is believed."""
    start: int = Field(ge=0)
    """The time step from which it is held (0 = from the start of the story)."""
    end: int | None = None
    """The time step at which it stops being held; None = still held at the story's end."""
    truth_status: TruthStatus
    """Against the story's reality: True, False, or Unknown when the story leaves it open."""
    knowledge_access: KnowledgeAccess
    """Private to the holder, Shared within a subgroup, or Public (common ground)."""
    representation: Representation
    """Explicit when the text states it, Implicit when derived."""
    mental_source: MentalSource
    """How the holder came by it."""
    context: Context = "Neutral"
    """Temporal for outdated states, Deceptive when a lie shaped it, Counterfactual if pretend."""
    trust: float | None = Field(default=None, ge=0.0, le=1.0)
    """For testimony: how much the holder trusts the source (1 = fully)."""
    source_actor: str | None = None
    """For testimony: who said it."""
    provenance: tuple[int, ...] = ()
    """Ids of the events it came from, oldest first."""
    wording: str | None = None
    """The proposition in a parser's own minimal words (an implied belief's), which tables
    show instead of rendering ``proposition``; None for beliefs the events produced."""
    asserted: bool = False
    """True when a user or a gold table asserted it rather than the solver deriving it."""

    @property
    def order(self) -> int:
        """The nesting depth: the length of the holder chain."""
        return len(self.holders)

    @property
    def content_type(self) -> ContentType:
        """Epistemic for beliefs about beliefs, else the proposition's own type."""
        return "Epistemic" if len(self.holders) > 1 else self.proposition.content_type

    def holds_at(self, t: int) -> bool:
        """Whether the belief is held at time ``t``."""
        return self.start <= t and (self.end is None or t < self.end)
