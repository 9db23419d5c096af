"""Turn a propagated segment into a fully typed ``Belief``: every label computed, none guessed.

The rules follow the OmniToM schema (seed 000, App. A): world facts are Narration and
Explicit; an actor's beliefs are Implicit unless a speaker stated them; Perception when the
holder saw the event, Memory when the world moved on unseen (context Temporal), Inference for
beliefs about beliefs, Testimony when told; Truth Status against the story's reality at the
end of the span (for a nested belief, reality is what the inner holder believes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from beliefgraph.models import Belief, Context, KnowledgeAccess, MentalSource, TruthStatus

if TYPE_CHECKING:
    from beliefgraph.solvers import Propagator, Segment, Timeline

__all__ = ["reference", "to_belief"]

_SOURCES: dict[str, MentalSource] = {
    "narration": "Narration",
    "perception": "Perception",
    "default": "Inference",
    "stated": "Unknown",  # the narrator says what they think, not how they came to think it
    "testimony": "Testimony",
}


def to_belief(
    chain: tuple[str, ...],
    seg: Segment,
    propagator: Propagator,
    cast: frozenset[str],
) -> Belief:
    """Label ``seg``, the belief of ``chain``, on every dimension.

    ``cast`` is the set of actors physically in the story (those who can perceive), which
    decides when knowledge is Public.
    """
    timeline = propagator.timeline
    when = (seg.end - 1) if seg.end is not None else propagator.end
    ref = reference(chain, seg, propagator)
    truth: TruthStatus = (
        "Unknown" if ref is None else ("True" if ref.value == seg.value else "False")
    )
    source: MentalSource = _SOURCES[seg.source]
    if len(chain) >= 2 and seg.source in ("perception", "default"):
        source = "Inference"  # beliefs about beliefs are inferred from co-presence
    elif (
        len(chain) == 1
        and seg.source == "perception"
        and (seg.stale or propagator.departed(chain[0], seg, when))
    ):
        source = "Memory"  # it rests on a look the holder can no longer repeat
    context: Context = "Neutral"
    if propagator.is_lie(seg):
        context = "Deceptive"
    elif seg.stale or (seg.end is not None and seg.proposition.content_type != "Action/Event"):
        context = "Temporal"  # outdated, or a past state the holder saw change
    return Belief(
        holders=chain,
        proposition=seg.proposition,
        start=seg.start,
        end=seg.end,
        truth_status=truth,
        knowledge_access=_access(chain, seg, propagator, timeline, cast, when),
        representation="Explicit"
        if seg.source in ("narration", "testimony", "stated") and _stated(seg, timeline)
        else "Implicit",
        mental_source=source,
        context=context,
        trust=seg.trust,
        source_actor=seg.speaker,
        provenance=seg.provenance,
    )


def reference(chain: tuple[str, ...], seg: Segment, propagator: Propagator) -> Segment | None:
    """What ``seg`` is true or false against: the inner holder's belief (for a world fact,
    itself) at the end of its span. Beyond order 1 a belief's labels read only this and the
    segment itself, which lets chains share them (``BeliefGraph``)."""
    if not chain:
        return seg
    when = (seg.end - 1) if seg.end is not None else propagator.end
    return propagator.at(chain[1:], seg.proposition.variable, when)


def _stated(seg: Segment, timeline: Timeline) -> bool:
    """Whether the text states what produced the segment (not merely implies it)."""
    return not seg.provenance or timeline.steps[seg.provenance[0] - 1].event.stated


def _access(
    chain: tuple[str, ...],
    seg: Segment,
    propagator: Propagator,
    timeline: Timeline,
    cast: frozenset[str],
    when: int,
) -> KnowledgeAccess:
    """Private, Shared or Public: who perceived the source and still holds the same value."""
    witnesses = timeline.steps[seg.provenance[0] - 1].perceivers & cast if seg.provenance else set()
    if not chain:
        if not witnesses or witnesses >= cast:
            return "Public"
        return "Private" if len(witnesses) == 1 else "Shared"
    if len(chain) >= 2:
        return "Private"  # a belief about a belief is the holder's own inference
    var = seg.proposition.variable
    sharing = set(propagator.sharing(var, seg.value, when, frozenset(witnesses)))
    # A belief about where another actor is, or what they did, is not shared with that actor
    # by their being there: the others present are who could hold it too (OmniToM App. E).
    about = seg.proposition.subject
    if about in cast and about not in chain and seg.proposition.content_type in _ABOUT_ACTORS:
        sharing.discard(about)
        cast = cast - {about}
    if len(sharing) <= 1:
        return "Private"
    return "Public" if sharing >= cast else "Shared"


_ABOUT_ACTORS = frozenset({"Location", "Action/Event"})
