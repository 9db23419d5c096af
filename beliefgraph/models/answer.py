"""The answer to a question asked of a belief graph."""

from pydantic import Field

from .base import BeliefModel
from .belief import Belief

__all__ = ["Answer"]


class Answer(BeliefModel):
    """A value with the belief it was read from and a plain-English derivation."""

    question: str
    """The question as asked."""
    value: str | None
    """The answer (a container, an object, yes/no); None when the graph cannot say."""
    belief: Belief | None = None
    """The belief the value was read from (None for questions about reality's history)."""
    explanation: tuple[str, ...] = Field(default=())
    """One line per reasoning step, each naming the story lines that decided it."""
    rests_on_unread: tuple[int, ...] = ()
    """Sentences the parser could not read that may change this answer (their ``index``,
    0-based in the segmenter's numbering: clauses of one sentence share it); the
    explanation's last line names them. Empty when every sentence that could bear on it
    was read."""

    def __str__(self) -> str:
        return f"{self.value}: " + " ".join(self.explanation)
