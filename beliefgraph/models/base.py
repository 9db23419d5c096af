"""The one base class every beliefgraph model derives from."""

from typing import Any, Self

from pydantic import BaseModel, ConfigDict

__all__ = ["BeliefModel"]


class BeliefModel(BaseModel):
    """Frozen, strict pydantic base: we own the schema, so unknown fields are errors."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def replaced(self, **fields: Any) -> Self:
        """``model_copy(update=fields)`` for inner loops: the same copy, made directly.

        Like ``model_copy``, the new values are not validated. pydantic's own copy calls
        ``copy.copy`` three times, which was most of the cost of copying an event or a
        belief in a loop; a frozen model's dict never changes, so the copy only needs a new
        one (``tests/test_speed.py`` checks it equals ``model_copy``'s).

        Examples
        --------
        >>> from beliefgraph.models import Proposition
        >>> p = Proposition(content_type="Location", subject="ball", relation="in", value="box")
        >>> p.replaced(value="bag") == p.model_copy(update={"value": "bag"})
        True
        """
        new = self.__class__.__new__(self.__class__)
        object.__setattr__(new, "__dict__", {**self.__dict__, **fields})
        object.__setattr__(
            new, "__pydantic_fields_set__", self.__pydantic_fields_set__ | fields.keys()
        )
        object.__setattr__(new, "__pydantic_extra__", None)
        private = self.__pydantic_private__
        object.__setattr__(new, "__pydantic_private__", None if private is None else {**private})
        return new
