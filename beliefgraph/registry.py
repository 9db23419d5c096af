"""Catalogues of swappable parts, registered under versioned names.

Other packages can add entries through the ``beliefgraph_parsers`` and
``beliefgraph_trust_policies`` entry-point groups, as spaCy's registries allow.

Examples
--------
>>> from beliefgraph.registry import trust_policies
>>> "default" in trust_policies.get_all()
True
"""

from collections.abc import Callable
from typing import Any

import catalogue

from .errors import UnknownNameError

__all__ = ["parsers", "resolve", "trust_policies"]

parsers = catalogue.create("beliefgraph", "parsers", entry_points=True)
trust_policies = catalogue.create("beliefgraph", "trust_policies", entry_points=True)


def resolve(registry: catalogue.Registry, name: str, what: str) -> Callable[..., Any]:
    """Look ``name`` up in ``registry``, with an error that lists what exists."""
    _load_builtins()
    try:
        return registry.get(name)
    except catalogue.RegistryError:
        known = ", ".join(sorted(registry.get_all()))
        raise UnknownNameError(f"unknown {what} {name!r}; registered: {known}") from None


def _load_builtins() -> None:
    # Importing the packages runs their @register decorators.
    from beliefgraph import parsers as _p  # noqa: F401
    from beliefgraph import solvers as _s  # noqa: F401
