"""Parsers: story text in, a typed ``ParsedStory`` out.

Importing the package registers its parsers in ``beliefgraph.registry.parsers``.

Examples
--------
>>> from beliefgraph.registry import parsers
>>> parsers.get("rules")(strict=False)
RulesParser(strict=False)
"""

from beliefgraph.registry import parsers

from . import llm  # noqa: F401  (registers the "llm" and "auto" parsers)
from .render import render
from .rules import RulesParser

__all__ = ["RulesParser", "make_rules_parser", "render"]


@parsers.register("beliefgraph.rules_parser.v1")
@parsers.register("rules")
def make_rules_parser(*, strict: bool = True) -> RulesParser:
    """Build the offline rules parser (registered as "rules" and "beliefgraph.rules_parser.v1").

    Parameters
    ----------
    strict : bool, default True
        Raise on sentences no rule reads instead of keeping them as uninterpreted facts.

    Returns
    -------
    RulesParser
        A parser whose ``parse(text)`` returns a ``ParsedStory``.

    Examples
    --------
    >>> make_rules_parser().parse("Sally comes back.").events[0].kind
    'enter'
    """
    return RulesParser(strict=strict)
