"""The axiom of an inferred belief: its holder perceived the evidence it rests on.

An inference is drawn from something the holder saw or heard (a hint, a look, a remark), so a
belief sourced by Inference whose evidence events (its provenance) the outermost holder
perceived none of cannot stand: the report names the belief and the evidence sentences.
An inferred belief that contradicts what its holder saw is caught by ``observation`` and
``persistence`` like any belief, naming both lines.

Limits: an Inference belief with no provenance (asserted by hand without evidence) is not
checked by this axiom.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..axiom import INFERENCE_EVIDENCE, Constraint, register
from ..encoding import Encoding

__all__: list[str] = []


def _constraints(enc: Encoding) -> Iterator[Constraint]:
    for claim in enc.claims:
        if claim.belief is None:
            continue
        b = enc.beliefs[claim.belief]
        if b.mental_source != "Inference" or not b.holders or not b.provenance:
            continue
        holder = b.holders[0]
        steps = [enc.steps[t - 1] for t in b.provenance if 1 <= t <= enc.end]
        if steps and not any(holder in s.perceivers or holder in s.event.actors for s in steps):
            # Read off the story: the belief is false under this axiom, so the core names it.
            yield Constraint(enc.terms.false, (claim.fact,))


register(
    INFERENCE_EVIDENCE,
    "A belief sourced by Inference rests on evidence its outermost holder perceived: at "
    "least one event it was inferred from.",
    "an inference needs evidence its holder perceived",
    _constraints,
    static=True,
)
