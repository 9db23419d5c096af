"""The front door: ``track`` turns story text into a belief graph."""

from __future__ import annotations

from typing import Any

from beliefgraph.graph import BeliefGraph
from beliefgraph.registry import parsers, resolve
from beliefgraph.solvers import PerceptionModel, TrustPolicy

__all__ = ["track"]


def track(
    text: str,
    *,
    parser: str = "rules",
    max_order: int = 4,
    trust: TrustPolicy | str = "default",
    perception: PerceptionModel | None = None,
    strict: bool = True,
    **parser_settings: Any,
) -> BeliefGraph:
    """Parse ``text`` and return its belief graph.

    Parameters
    ----------
    text : str
        The story. bAbI line numbers ("1 Ella entered the garage.") are read as line numbers.
    parser : str
        A registered parser name; ``"rules"`` is the offline spaCy parser.
    max_order : int
        The deepest holder chain ``BeliefGraph.beliefs()`` lists (queries may go deeper).
    trust : TrustPolicy or str
        How hearers weigh what they are told: ``"default"`` or ``"hitom"``, or a policy object.
    perception : PerceptionModel, optional
        Perception settings; ``PerceptionModel(open_containers=True)`` for ToMi / Hi-ToM.
    strict : bool
        Raise ``UnparsedSentenceError`` on a sentence no rule reads (False: keep it as an
        uninterpreted world fact and warn).

    Returns
    -------
    BeliefGraph

    Raises
    ------
    UnparsedSentenceError
        In strict mode, naming the sentence and its position.
    UnknownNameError
        For an unregistered parser or trust policy.

    Examples
    --------
    >>> g = track("Sally and Anne are in the room. Sally puts the ball in the basket. "
    ...           "Sally goes out. Anne moves the ball to the box.")
    >>> g.ask("Where will Sally look for the ball?").value
    'basket'
    """
    make = resolve(parsers, parser, "parser")
    story = make(strict=strict, **parser_settings).parse(text)
    return BeliefGraph(story, perception=perception, trust=trust, max_order=max_order)
