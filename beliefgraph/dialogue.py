"""Dialogues as belief graphs: turns in, one event per turn, the graph out.

``track_dialogue`` is ``track`` for conversations: a transcript (``Speaker: utterance``
lines) or a list of turns becomes a ``BeliefGraph`` in which every spoken turn is a public
``tell`` heard by every participant and every private thought (ToMATO's ``(thought)``) is
perceived by its holder alone. With an LLM parser the content of each turn is typed (one
call per dialogue); without one each turn tells its own words. ``dialogue_story`` and
``dialogue_graph`` keep exactly one event per turn, which turn-indexed readers (ToMATO,
DialToM) rely on; ``perceived_turns`` is a holder's perspective.

Limits: everyone present hears every public turn, as in a two-party chat; silent listeners
must be named (``participants``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from beliefgraph.errors import ConfigurationError, DataFormatError
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import ParsedStory
from beliefgraph.parsers.llm.dialogue import Turn, parse_dialogue, read_transcript

if TYPE_CHECKING:
    from beliefgraph.parsers.llm import LLMParser

__all__ = ["dialogue_graph", "dialogue_story", "perceived_turns", "track_dialogue"]


def track_dialogue(
    turns: Sequence[Turn] | Sequence[tuple[str, str]] | str,
    *,
    parser: LLMParser | str | None = "llm",
    participants: Iterable[str] = (),
    max_order: int = 4,
    trust: Any = "default",
    perception: Any = None,
    **parser_settings: Any,
) -> BeliefGraph:
    """The belief graph of a dialogue.

    Parameters
    ----------
    turns : sequence of Turn or (speaker, text) pairs, or str
        The turns, or a transcript (see the module docstring).
    parser : LLMParser, "llm" or None
        Who types the content: a parser, ``"llm"`` to build one from ``parser_settings``
        and the environment, or None for no LLM (each turn tells its words).
    participants : iterable of str
        Listeners who never speak.
    max_order, trust, perception
        As for ``beliefgraph.track``.

    Returns
    -------
    BeliefGraph

    Examples
    --------
    >>> g = track_dialogue("Ann: Hi.\\nBob (thinks): She is late.", parser=None)
    >>> [b.holders for b in g.beliefs(max_order=1) if b.proposition.relation == "think"]
    [(), ('Bob',)]
    """
    from beliefgraph.parsers.llm import LLMParser  # openai loads only for a real parse

    text: str | None = None
    if isinstance(turns, str):
        text, turns = turns, read_transcript(turns)
    turns = [t if isinstance(t, Turn) else Turn(t[0], t[1]) for t in turns]
    llm: LLMParser | None
    if isinstance(parser, str):
        if parser != "llm":
            raise ConfigurationError(
                f"track_dialogue parser must be 'llm', a parser or None; got {parser!r}"
            )
        llm = LLMParser(**parser_settings)
    else:
        llm = parser
    story = parse_dialogue(turns, parser=llm, participants=participants, text=text)
    return BeliefGraph(story, perception=perception, trust=trust, max_order=max_order)


def dialogue_story(
    turns: Sequence[Turn | tuple[str, str]],
    participants: Iterable[str] = (),
    *,
    parser: LLMParser | None = None,
) -> ParsedStory:
    """The events of a dialogue: at least one per turn, in turn order
    (``Event.sentence_index`` = turn).

    Spoken turns are ``tell`` events by the speaker, perceived by every participant; thoughts
    are ``narrate`` events perceived by their holder alone. With ``parser`` (an
    ``LLMParser``), one call types what is said (a turn that claims one thing and states a
    feeling gives two events); without it each turn tells its words, one event per turn.

    Raises
    ------
    DataFormatError
        When some turn has no event or the events are out of turn order (turn-indexed
        readers rely on both).

    Examples
    --------
    >>> s = dialogue_story([("Ann", "Hi."), Turn("Bob", "She is late.", "think")])
    >>> [(e.kind, e.perceivers, e.sentence_index) for e in s.events]
    [('tell', ('Ann', 'Bob'), 0), ('narrate', ('Bob',), 1)]
    """
    norm = [t if isinstance(t, Turn) else Turn(t[0], t[1]) for t in turns]
    story = parse_dialogue(norm, parser=parser, participants=participants)
    turns_read = [e.sentence_index for e in story.events]
    # The adapters index events by turn (``sentence_index``), never by position.
    if turns_read != sorted(turns_read) or set(turns_read) != set(range(len(norm))):
        missing = sorted(set(range(len(norm))) - set(turns_read))
        raise DataFormatError(
            f"expected every dialogue turn to yield an event, in turn order; {len(norm)} "
            f"turns, none for turns {[i + 1 for i in missing]}"
            if missing
            else f"expected the events of a dialogue in turn order, got turns {turns_read}"
        )
    return story


def dialogue_graph(
    turns: Sequence[Turn | tuple[str, str]],
    *,
    trust: Any = "default",
    participants: Iterable[str] = (),
    max_order: int = 2,
    parser: LLMParser | None = None,
) -> BeliefGraph:
    """The belief graph of a dialogue, one event per turn (see ``dialogue_story``).

    Parameters
    ----------
    turns : sequence of Turn or (speaker, text)
        In order.
    trust : TrustPolicy or str
        E.g. an ``EdgeTrust`` holding the dialogue's trust edges.
    participants : iterable of str
        Listeners who never speak.
    max_order : int
        The deepest holder chain ``beliefs()`` lists.
    parser : LLMParser, optional
        Types what is said (one call); None: each turn tells its words.
    """
    story = dialogue_story(turns, participants, parser=parser)
    return BeliefGraph(story, trust=trust, max_order=max_order)


def perceived_turns(graph: BeliefGraph, holder: str, upto: int) -> list[int]:
    """The turn indices ``holder`` perceived up to and including turn ``upto``.

    Examples
    --------
    >>> g = dialogue_graph([("A", "Hi."), Turn("B", "Hm.", "think"), ("B", "Hey."),
    ...                     ("A", "Bye.")])
    >>> perceived_turns(g, "A", 2), perceived_turns(g, "B", 2)
    ([0, 2], [0, 1, 2])
    """
    return sorted(
        {
            e.sentence_index
            for e in graph.events
            if e.sentence_index <= upto and holder in (e.perceivers or ())
        }
    )
