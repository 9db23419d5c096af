"""A belief the story implies rather than narrates, as a parser proposes it."""

from typing import Literal, get_args

from pydantic import Field

from .base import BeliefModel
from .proposition import Proposition

__all__ = ["HOWS", "How", "ImpliedBelief"]

How = Literal["inferred", "implied", "told", "saw", "remembers", "imagined"]
"""How a holder comes by a belief: worked out from what they perceived (``inferred``), their
own unstated intention or feeling (``implied``), ``told``, ``saw``, ``remembers``, or
supposed, pretended or hoped (``imagined``)."""

HOWS: tuple[str, ...] = get_args(How)


class ImpliedBelief(BeliefModel):
    """A belief a parser read between the lines: its holder chain, content, evidence and how.

    The graph turns it into a ``Belief`` held from its last evidence sentence, typed by
    ``how`` (Inference and Implicit for an inferred or implied one), and propagates it to the
    actors who perceived that evidence (``beliefgraph.solvers.implied``).

    Examples
    --------
    >>> p = Proposition(content_type="Desire/Intention", subject="Li", relation="need",
    ...                 value="eggs")
    >>> ImpliedBelief(holders=("Mom",), proposition=p, wording="Li needs eggs",
    ...               evidence=(0,), how="inferred").order
    1
    """

    holders: tuple[str, ...] = Field(min_length=1)
    """The holder chain, outermost first: ("A", "B") is "A believes that B believes"."""
    proposition: Proposition
    """What is believed, typed."""
    wording: str = Field(min_length=1)
    """The proposition in the parser's minimal words ("Li needs eggs"), for tables."""
    evidence: tuple[int, ...] = Field(min_length=1)
    """The sentences (0-based ``Sentence.index``) the outermost holder has it from."""
    how: How
    """How the outermost holder came by it."""

    @property
    def order(self) -> int:
        """The nesting depth: the length of the holder chain."""
        return len(self.holders)
