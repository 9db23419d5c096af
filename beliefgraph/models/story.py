"""What a parser returns: the story's sentences and the typed events read from them."""

from pydantic import Field

from .base import BeliefModel
from .cost import ParseCost
from .entity import Entity
from .event import Event
from .implied import ImpliedBelief

__all__ = ["ParsedStory", "Sentence"]


class Sentence(BeliefModel):
    """One sentence (or comma-spliced clause) of the input, kept verbatim."""

    index: int = Field(ge=0)
    """Position in the story, 0-based, in ``beliefgraph.text.segment``'s numbering: the
    clauses a parser keeps of one sentence share that sentence's index."""
    text: str
    """The text exactly as given."""
    line: int | None = None
    """The source's own line number (bAbI numbering), if it has one."""
    parsed: bool = True
    """False when no parser rule read it: it is kept, never dropped."""
    reason: str | None = None
    """Why it is unparsed, when a parser knows (e.g. "answer pending in batch file b.jsonl")."""
    events: tuple[int, ...] = ()
    """Ids of the events read from it (a distractor sentence may yield a narrated fact)."""


class ParsedStory(BeliefModel):
    """The typed event representation that every parser emits and every solver consumes."""

    text: str
    """The story as given."""
    sentences: tuple[Sentence, ...]
    """Every sentence, parsed or not, in order."""
    events: tuple[Event, ...]
    """The events, ids 1..n in story order."""
    actors: tuple[str, ...]
    """Actor names in order of first mention."""
    entities: tuple[Entity, ...] = ()
    """Objects, containers and rooms in order of first mention."""
    parser: str = "rules"
    """The registered name of the parser that produced it."""
    implied: tuple[ImpliedBelief, ...] = ()
    """Beliefs the parser read between the lines (a hint's intent, what a listener infers),
    with their evidence sentences; the graph types and propagates them."""
    cost: ParseCost = Field(default_factory=ParseCost)
    """LLM calls and tokens spent producing it (zero for the offline parser)."""

    @property
    def unparsed(self) -> tuple[Sentence, ...]:
        """The sentences no rule could read."""
        return tuple(s for s in self.sentences if not s.parsed)

    @property
    def coverage(self) -> float:
        """Fraction of sentences parsed (1.0 for an empty story)."""
        if not self.sentences:
            return 1.0
        return sum(s.parsed for s in self.sentences) / len(self.sentences)
