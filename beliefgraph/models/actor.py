"""An agent in a story."""

from pydantic import Field

from .base import BeliefModel

__all__ = ["Actor"]


class Actor(BeliefModel):
    """Someone who can perceive events and hold beliefs."""

    name: str = Field(min_length=1)
    """The name as the story spells it ("Xiao Li", "Sally")."""
