"""The one base class every beliefgraph model derives from."""

from pydantic import BaseModel, ConfigDict

__all__ = ["BeliefModel"]


class BeliefModel(BaseModel):
    """Frozen, strict pydantic base: we own the schema, so unknown fields are errors."""

    model_config = ConfigDict(frozen=True, extra="forbid")
