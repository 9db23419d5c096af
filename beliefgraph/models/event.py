"""Something that happens in a story, at one time step."""

from pydantic import Field

from .base import BeliefModel
from .labels import EventKind
from .proposition import Proposition

__all__ = ["Event"]


class Event(BeliefModel):
    """A timestamped happening, as a parser reads it from one sentence or clause.

    Time is the event's ``id``: events are numbered 1, 2, ... in story order, and time 0 is
    the story's start. Who perceives the event is left to the perception model unless the
    parser knows better (``perceivers``), so one parse can be replayed under different
    perception settings (ToMi's open containers, Sally-Anne's closed box).
    """

    id: int = Field(ge=1)
    """The time step, 1-based, in story order."""
    kind: EventKind
    """What happens."""
    actors: tuple[str, ...] = ()
    """Who does it: the mover, the speaker, the group that enters or looks."""
    obj: str | None = None
    """The object moved or found."""
    origin: str | None = None
    """The container an object is taken from, when the sentence says so."""
    destination: str | None = None
    """The container an object is put into."""
    room: str | None = None
    """The room entered or left, when the sentence names it."""
    proposition: Proposition | None = None
    """What is narrated, observed, labelled or told."""
    hearers: tuple[str, ...] = ()
    """For a telling: who it is addressed to (empty = everyone present)."""
    private: bool = False
    """For a telling: heard by the addressees only."""
    perceivers: tuple[str, ...] | None = None
    """Who perceives it; None until the perception model decides."""
    stated: bool = True
    """False when the text only implies it (a mental state read between the lines)."""
    hypothetical: bool = False
    """Added by a question ("After Youyou returns ..."), not narrated by the story."""
    sentence: str = ""
    """The sentence or clause it was read from, verbatim."""
    sentence_index: int = Field(default=0, ge=0)
    """Index of that sentence in the story (0-based, ``beliefgraph.text.segment``'s
    numbering: events of several clauses of one sentence share it)."""
    line: int | None = None
    """The line number the source file gives the sentence (bAbI numbering), if any."""
    parser: str = "rules"
    """Which parser produced the event."""

    @property
    def agent(self) -> str | None:
        """The first actor, who performs a move or a telling."""
        return self.actors[0] if self.actors else None

    def cite(self) -> str:
        """A short reference to the story line behind the event, for explanations."""
        where = (
            f"line {self.line}" if self.line is not None else f"sentence {self.sentence_index + 1}"
        )
        return f'{where} ("{self.sentence.strip()}")'
