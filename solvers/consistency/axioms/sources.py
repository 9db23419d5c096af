"""Axioms of a belief's mental source: perceived, heard or remembered from a story event."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ..axiom import MEMORY, PERCEPTION, TESTIMONY, Constraint, register
from ..encoding import Encoding

__all__: list[str] = []


def _source(kind: str) -> Callable[[Encoding], Iterator[Constraint]]:
    def constraints(enc: Encoding) -> Iterator[Constraint]:
        for claim in enc.claims:
            if claim.belief is None or enc.beliefs[claim.belief].mental_source != kind:
                continue
            if not enc.supports(claim):
                # Whether an event supports it is read off the story, so an unsupported
                # belief is simply false under this axiom: the core names belief and axiom.
                yield Constraint(enc.terms.false, (claim.fact,))

    return constraints


register(
    PERCEPTION,
    "A belief sourced by Perception starts at an event every holder perceived that shows it.",
    "a perceived belief needs an event its holders saw show it",
    _source("Perception"),
    static=True,
)
register(
    TESTIMONY,
    "A belief sourced by Testimony starts at a telling every holder heard that asserts it "
    "and that may change their belief (never the teller's own).",
    "a belief from testimony needs a telling its holders heard",
    _source("Testimony"),
    static=True,
)
register(
    MEMORY,
    "A belief sourced by Memory was shown or told to its holders by an event no later than "
    "the start of its span (the look it rests on).",
    "a remembered belief needs an earlier event that showed or told it",
    _source("Memory"),
    static=True,
)
