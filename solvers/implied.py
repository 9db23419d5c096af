"""Implied beliefs in the graph: typed by how they were come by, propagated by perception.

A parser proposes beliefs the story implies (``ParsedStory.implied``: a hint's intent, a
speaker's feeling, what a listener infers), each with its evidence sentences. Here each
becomes a ``Belief``:

- held from the last event of its evidence (time 0 when the evidence yields no event);
- typed by ``how``: inferred and implied beliefs are Inference and Implicit, told ones
  Testimony, seen ones Perception, remembered ones Memory, imagined ones Imagination
  (context Counterfactual);
- *supported* when its outermost holder perceived at least one evidence event (the
  perception model decides who perceived what). An unsupported one stays in the graph, so
  nothing a parser gave is dropped, and the ``inference_evidence`` axiom reports it;
- *propagated*: an implied belief of an actor (their own unstated intention or feeling) is
  visible in what that actor did or said, so every other actor who perceived one of those
  evidence events can hold that the actor believes it (the listener who heard the hint, never
  one who was absent): ``(listener, actor)``, Inference and Implicit.

Limits: truth status is read against the world only for first-order beliefs about a variable
the events set (otherwise Unknown); propagation goes one level (to the actors who perceived
the holder's own act), never further down a chain.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from beliefgraph.models import (
    Belief,
    Context,
    ImpliedBelief,
    KnowledgeAccess,
    MentalSource,
    ParsedStory,
    Representation,
    TruthStatus,
)

from .perception import Step, Timeline

__all__ = ["Implied", "evidence_steps", "implied_beliefs", "perceived_evidence"]

_TYPED: dict[str, tuple[MentalSource, Representation]] = {
    "inferred": ("Inference", "Implicit"),
    "implied": ("Inference", "Implicit"),
    "told": ("Testimony", "Explicit"),
    "saw": ("Perception", "Implicit"),
    "remembers": ("Memory", "Explicit"),
    "imagined": ("Imagination", "Implicit"),
}


@dataclass(frozen=True)
class Implied:
    """A story's implied beliefs as graph beliefs."""

    proposed: tuple[Belief, ...] = ()
    """The parser's, in its order, each typed (``ParsedStory.implied[i]`` is ``proposed[i]``)."""
    supported: tuple[bool, ...] = ()
    """Whether the outermost holder perceived the evidence of ``proposed[i]``."""
    propagated: tuple[Belief, ...] = ()
    """What the actors who perceived an implied belief's evidence hold about it."""

    @property
    def beliefs(self) -> tuple[Belief, ...]:
        """Every implied belief of the graph: proposed, then propagated."""
        return (*self.proposed, *self.propagated)

    def shown(self) -> list[Belief]:
        """The proposed beliefs whose holder perceived their evidence (for tables)."""
        return [b for b, ok in zip(self.proposed, self.supported, strict=True) if ok]


def evidence_steps(timeline: Timeline, sentences: Iterable[int]) -> list[Step]:
    """The steps whose events were read from ``sentences`` (0-based indices) and that someone
    perceived or took part in: a narrated background nobody perceives ("the day is sunny")
    is the narrator's, and says nothing about who could have drawn the belief from it."""
    wanted = set(sentences)
    return [
        s
        for s in timeline.steps
        if s.event.sentence_index in wanted and (s.perceivers or s.event.actors)
    ]


def perceived_evidence(timeline: Timeline, holder: str, sentences: Iterable[int]) -> bool:
    """Whether ``holder`` perceived an event of the evidence ``sentences`` (or took part).

    Evidence that yields no event anybody perceived cannot be checked and counts as perceived.

    Examples
    --------
    >>> from beliefgraph import track
    >>> g = track("Ann and Bob are in the hall. Bob leaves the hall. Ann opens the box.")
    >>> [perceived_evidence(g.timeline, a, [2]) for a in ("Ann", "Bob")]
    [True, False]
    """
    steps = evidence_steps(timeline, sentences)
    return not steps or any(holder in s.perceivers or holder in s.event.actors for s in steps)


def implied_beliefs(story: ParsedStory, timeline: Timeline, cast: frozenset[str]) -> Implied:
    """Type ``story.implied`` against the perception ``timeline`` and propagate them.

    ``cast`` is the set of actors who perceive anything in the story.
    """
    proposed: list[Belief] = []
    supported: list[bool] = []
    for ib in story.implied:
        steps = evidence_steps(timeline, ib.evidence)
        holder = ib.holders[0]
        seen = [s for s in steps if holder in s.perceivers or holder in s.event.actors]
        proposed.append(_typed(ib, steps, seen, timeline, cast))
        supported.append(not steps or bool(seen))
    actors = [a for a in story.actors if a in cast]
    propagated = _propagate(story.implied, proposed, supported, timeline, actors)
    return Implied(tuple(proposed), tuple(supported), tuple(propagated))


def _typed(
    ib: ImpliedBelief,
    steps: Sequence[Step],
    seen: Sequence[Step],
    timeline: Timeline,
    cast: frozenset[str],
) -> Belief:
    source, representation = _TYPED[ib.how]
    start = max((s.event.id for s in steps), default=0)
    truth: TruthStatus = "Unknown"
    var = ib.proposition.variable
    if ib.order == 1 and var in timeline.propositions:
        world = timeline.world_at(len(timeline.steps))
        if var in world:
            truth = "True" if world[var] == ib.proposition.assigned else "False"
    witnesses = set().union(*(s.perceivers for s in seen)) & cast if seen else set()
    access: KnowledgeAccess = "Private"
    if ib.how in ("told", "saw") and len(witnesses) > 1:
        access = "Public" if witnesses >= cast else "Shared"
    context: Context = "Counterfactual" if ib.how == "imagined" else "Neutral"
    return Belief(
        holders=ib.holders,
        proposition=ib.proposition,
        start=start,
        truth_status=truth,
        knowledge_access=access,
        representation=representation,
        mental_source=source,
        context=context,
        provenance=tuple(s.event.id for s in (seen or steps)),
        wording=ib.wording,
    )


def _propagate(
    implied: Sequence[ImpliedBelief],
    proposed: Sequence[Belief],
    supported: Sequence[bool],
    timeline: Timeline,
    actors: Sequence[str],
) -> list[Belief]:
    taken = {(b.holders, b.proposition.variable) for b in proposed}
    out: list[Belief] = []
    for ib, b, ok in zip(implied, proposed, supported, strict=True):
        if ib.how != "implied" or ib.order != 1 or not ok:
            continue
        actor = ib.holders[0]
        # What the actor did or said shows their own state to those who perceived it.
        acts = [s for s in evidence_steps(timeline, ib.evidence) if _acts(s, actor)]
        for other in actors:
            if other == actor:
                continue
            chain = (other, actor)
            saw = [s.event.id for s in acts if other in s.perceivers]
            if not saw or (chain, b.proposition.variable) in taken:
                continue
            taken.add((chain, b.proposition.variable))
            out.append(
                b.model_copy(
                    update={
                        "holders": chain,
                        "start": max(saw),
                        "truth_status": "Unknown",
                        "knowledge_access": "Private",
                        "representation": "Implicit",
                        "mental_source": "Inference",
                        "provenance": tuple(saw),
                    }
                )
            )
    return out


def _acts(step: Step, actor: str) -> bool:
    """Whether ``actor`` does or says something in ``step`` (an act narrated of them too:
    "Ann eats the pie")."""
    e, p = step.event, step.event.proposition
    if actor in e.actors:
        return True
    return (
        e.kind == "narrate"
        and p is not None
        and p.subject == actor
        and p.content_type == "Action/Event"
        and not p.negated
    )
