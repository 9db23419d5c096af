"""Axioms as registry entries: the ``Axiom`` record, its ``Constraint`` and name resolution.

An axiom is a named rule whose ``constraints(encoding)`` yields z3 formulas, each tagged
with the facts it encodes and the axioms it relies on, so an unsat core maps back to names.
Built-in axioms register under ``beliefgraph.axiom.<name>.v1`` when
``beliefgraph.solvers.consistency`` is imported; third-party ones register their own names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from beliefgraph.errors import UnknownNameError
from beliefgraph.registry import axioms as axiom_registry
from beliefgraph.registry import resolve

if TYPE_CHECKING:
    from .encoding import Encoding

__all__ = [
    "DEFAULT_AXIOMS",
    "FACTIVE",
    "FRAME",
    "HEARER_PRESENT",
    "INFERENCE_EVIDENCE",
    "INTRO",
    "MEMORY",
    "MOVER_PRESENT",
    "NC",
    "OBSERVATION",
    "PERCEPTION",
    "PERSISTENCE",
    "TAKEN_FROM",
    "TESTIMONY",
    "UL",
    "Axiom",
    "Constraint",
    "Fact",
    "lookup",
    "register",
    "resolve_axioms",
]

Fact = tuple[str, int]
"""``("belief", i)`` (the i-th checked belief) or ``("event", t)``."""

UL, NC, FACTIVE, INTRO = "unique_location", "no_contradiction", "factive", "introspection"
PERCEPTION, TESTIMONY, MEMORY = "perception_source", "testimony_source", "memory_source"
PERSISTENCE, OBSERVATION, FRAME = "persistence", "observation", "frame"
MOVER_PRESENT, TAKEN_FROM, HEARER_PRESENT = "mover_present", "taken_from", "hearer_present"
INFERENCE_EVIDENCE = "inference_evidence"

DEFAULT_AXIOMS: tuple[str, ...] = (
    UL,
    NC,
    FACTIVE,
    INTRO,
    PERCEPTION,
    TESTIMONY,
    MEMORY,
    PERSISTENCE,
    OBSERVATION,
    FRAME,
    MOVER_PRESENT,
    TAKEN_FROM,
    HEARER_PRESENT,
    INFERENCE_EVIDENCE,
)
"""Short names of the built-in axioms, in the order reports list them."""


@dataclass(frozen=True, slots=True)
class Constraint:
    """A z3 formula produced by an axiom, with the facts it encodes and the axioms it needs.

    The encoder asserts ``expr`` under the literal of the producing axiom, of every name in
    ``axioms`` and of every fact, so an unsat core maps back to all of them.
    """

    expr: Any
    facts: tuple[Fact, ...] = ()
    axioms: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Axiom:
    """A named, documented rule; ``constraints(encoding)`` yields its z3 constraints."""

    name: str
    rule: str
    """The rule in one sentence (docs, CLI)."""
    because: str
    """The clause a conflict explanation uses when the axiom is involved."""
    constraints: Callable[[Encoding], Iterable[Constraint]]
    static: bool = False
    """True when the rule is read off the story alone (a belief's source, an event's
    precondition): every constraint it yields is ``false`` under the facts that break it, so
    the first, untracked pass only needs to know whether it yields any."""


def register(
    name: str,
    rule: str,
    because: str,
    constraints: Callable[[Encoding], Iterable[Constraint]],
    *,
    static: bool = False,
) -> None:
    """Register a built-in axiom under ``beliefgraph.axiom.<name>.v1``."""

    def make() -> Axiom:
        return Axiom(name, rule, because, constraints, static)

    make.__name__ = f"make_{name}"
    make.__doc__ = rule
    axiom_registry.register(f"beliefgraph.axiom.{name}.v1", func=make)


def lookup(name: str) -> Axiom:
    """The axiom registered under a short (``"frame"``) or a registered name.

    Raises
    ------
    UnknownNameError
        For a name that is not registered.
    """
    registered = name if "." in name else f"beliefgraph.axiom.{name}.v1"
    try:
        return resolve(axiom_registry, registered, "axiom")()
    except UnknownNameError:
        raise UnknownNameError(
            f"unknown axiom {name!r}; the built-in ones are {', '.join(DEFAULT_AXIOMS)} "
            "(or give a registered name such as 'beliefgraph.axiom.persistence.v1')"
        ) from None


def resolve_axioms(
    axioms: Iterable[str] | None = None, without: Iterable[str] = ()
) -> tuple[Axiom, ...]:
    """The axioms to check: ``axioms`` (default: all built-in ones) minus ``without``.

    Names are short (``"persistence"``) or registered (``"beliefgraph.axiom.persistence.v1"``).

    Raises
    ------
    UnknownNameError
        For a name that is not registered.

    Examples
    --------
    >>> import beliefgraph.solvers.consistency  # registers the built-in axioms
    >>> [a.name for a in resolve_axioms(without=["observation", "memory_source"])][:3]
    ['unique_location', 'no_contradiction', 'factive']
    """
    wanted = list(DEFAULT_AXIOMS if axioms is None else axioms)
    drop = {lookup(n).name for n in without}
    out: list[Axiom] = []
    for n in wanted:
        ax = lookup(n)
        if ax.name not in drop and ax.name not in {a.name for a in out}:
            out.append(ax)
    return tuple(out)
