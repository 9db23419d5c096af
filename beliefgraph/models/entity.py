"""A thing in a story: an object, a container, or a room."""

from pydantic import Field

from .base import BeliefModel
from .labels import EntityKind

__all__ = ["Entity"]


class Entity(BeliefModel):
    """A named non-agent the story talks about."""

    name: str = Field(min_length=1)
    """The name as the story spells it, without article ("green_crate", "basket")."""
    kind: EntityKind
    """Whether it is moved around (object), holds objects (container) or holds actors (room)."""
