"""The front door: ``track`` turns story text into a belief graph."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal, Protocol

from beliefgraph.errors import ConfigurationError, UnreadSentencesWarning, sentence_place
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import ParsedStory
from beliefgraph.registry import parsers, resolve
from beliefgraph.solvers import PerceptionModel, TrustPolicy

__all__ = ["StoryParser", "current_parser", "track", "using_parser"]


class StoryParser(Protocol):
    """Anything with ``parse(text) -> ParsedStory``: a registered parser's instance."""

    def parse(self, text: str) -> ParsedStory: ...


# The parser ``track`` uses when none is named: set by ``using_parser`` (the harness runs a
# whole benchmark through an LLM parser this way), otherwise the offline rules parser.
_current_parser: ContextVar[StoryParser | None] = ContextVar("beliefgraph_parser", default=None)


@contextmanager
def using_parser(parser: StoryParser) -> Iterator[StoryParser]:
    """Within the block, ``track`` calls that name no parser use ``parser``.

    Examples
    --------
    >>> from beliefgraph.parsers import RulesParser
    >>> with using_parser(RulesParser(strict=False)):
    ...     track("Sally comes back. Anne feels guilty.").story.unparsed[0].text
    'Anne feels guilty.'
    """
    token = _current_parser.set(parser)
    try:
        yield parser
    finally:
        _current_parser.reset(token)


def current_parser() -> StoryParser | None:
    """The parser ``using_parser`` set for this block, or None (``track`` then uses rules).

    Adapters that read text by other means than ``track`` (an LLM reader of their own, a
    dialogue typer) ask it, so that the run's parser choice reaches them too.

    Examples
    --------
    >>> current_parser() is None
    True
    >>> from beliefgraph.parsers import RulesParser
    >>> with using_parser(RulesParser()) as chosen:
    ...     current_parser() is chosen
    True
    """
    return _current_parser.get()


def track(
    text: str,
    *,
    parser: str | StoryParser | None = None,
    max_order: int = 4,
    trust: TrustPolicy | str = "default",
    perception: PerceptionModel | None = None,
    strict: bool = True,
    check: bool | Literal["raise", "warn"] = False,
    **parser_settings: Any,
) -> BeliefGraph:
    """Parse ``text`` and return its belief graph.

    Parameters
    ----------
    text : str
        The story. bAbI line numbers ("1 Ella entered the garage.") are read as line numbers.
    parser : str or parser object, optional
        A registered parser name (``"rules"``, the offline spaCy parser; ``"llm"``; ``"auto"``)
        or a parser instance. Default: the one set by ``using_parser``, else ``"rules"``.
    max_order : int
        The deepest holder chain ``BeliefGraph.beliefs()`` lists (queries may go deeper).
    trust : TrustPolicy or str
        How hearers weigh what they are told: ``"default"`` or ``"hitom"``, or a policy object.
    perception : PerceptionModel, optional
        Perception settings; ``PerceptionModel(open_containers=True)`` for ToMi / Hi-ToM.
    strict : bool
        Raise ``UnparsedSentenceError`` on a sentence no rule reads (False: keep it as an
        uninterpreted world fact and warn).
    check : bool or {"raise", "warn"}
        Check the parse with the z3 consistency axioms (``beliefgraph.check``): ``True`` or
        ``"raise"`` raises ``InconsistentGraphError`` (its ``report.explain()`` is the text
        to re-ask a parser with), ``"warn"`` issues an ``InconsistencyWarning`` instead.

    Returns
    -------
    BeliefGraph

    Raises
    ------
    UnparsedSentenceError
        In strict mode, naming the sentence and its position.
    UnknownNameError
        For an unregistered parser or trust policy.
    InconsistentGraphError
        With ``check=True`` or ``"raise"``, when the parse breaks a consistency axiom.
    ConfigurationError
        For a ``check`` value other than those above.

    Examples
    --------
    >>> g = track("Sally and Anne are in the room. Sally puts the ball in the basket. "
    ...           "Sally goes out. Anne moves the ball to the box.")
    >>> g.ask("Where will Sally look for the ball?").value
    'basket'
    """
    if check not in (False, True, "raise", "warn"):
        raise ConfigurationError(f"check must be True, False, 'raise' or 'warn', got {check!r}")
    if parser is None:
        parser = _current_parser.get() or "rules"
    if isinstance(parser, str):
        parser = resolve(parsers, parser, "parser")(strict=strict, **parser_settings)
    elif parser_settings:
        raise ConfigurationError(
            f"parser settings {sorted(parser_settings)} apply to a parser named by string; "
            "configure the parser object instead"
        )
    story = _parse(parser, text)
    graph = BeliefGraph(story, perception=perception, trust=trust, max_order=max_order)
    if check:
        # z3 loads here, not on ``import beliefgraph``.
        from beliefgraph.solvers.consistency import (
            InconsistencyWarning,
            InconsistentGraphError,
        )
        from beliefgraph.solvers.consistency import check as check_consistency

        report = check_consistency(graph)
        if not report.consistent:
            if check == "warn":
                warnings.warn(report.explain(), InconsistencyWarning, stacklevel=2)
            else:
                raise InconsistentGraphError(report)
    return graph


def _parse(parser: StoryParser, text: str) -> ParsedStory:
    """Parse, and report every unread sentence in one warning.

    Parsers warn in their own words (the rules parser once per sentence); a long story then
    floods the user. Warnings that name an unread sentence are folded into one
    ``UnreadSentencesWarning`` listing them all; any other warning passes through unchanged.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        story = parser.parse(text)
    unread = story.unparsed
    for w in caught:
        if any(s.text in str(w.message) for s in unread):
            continue  # named again, with the others, just below
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if unread:
        listing = "; ".join(f"{sentence_place(s.index, s.line)} {s.text!r}" for s in unread)
        warnings.warn(
            f"{len(unread)} of {len(story.sentences)} sentence(s) could not be read and are "
            f"kept as uninterpreted facts: {listing}. Answers that may depend on one say so "
            "(Answer.rests_on_unread).",
            UnreadSentencesWarning,
            stacklevel=3,
        )
    return story
