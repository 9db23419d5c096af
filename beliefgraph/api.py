"""The front door: ``track`` turns story text into a belief graph."""

from __future__ import annotations

import warnings
from typing import Any, Literal

from beliefgraph.errors import ConfigurationError
from beliefgraph.graph import BeliefGraph
from beliefgraph.registry import parsers, resolve
from beliefgraph.solvers import PerceptionModel, TrustPolicy
from beliefgraph.solvers.consistency import InconsistencyWarning, InconsistentGraphError
from beliefgraph.solvers.consistency import check as check_consistency

__all__ = ["track"]


def track(
    text: str,
    *,
    parser: str = "rules",
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
    make = resolve(parsers, parser, "parser")
    story = make(strict=strict, **parser_settings).parse(text)
    graph = BeliefGraph(story, perception=perception, trust=trust, max_order=max_order)
    if check:
        report = check_consistency(graph)
        if not report.consistent:
            if check == "warn":
                warnings.warn(report.explain(), InconsistencyWarning, stacklevel=2)
            else:
                raise InconsistentGraphError(report)
    return graph
