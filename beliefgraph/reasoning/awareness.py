"""Awareness: whether a holder believes a key fact, the belief that decides it, and what a
holder can see.

SimpleToM's three questions (awareness, behavior, judgment) are all read from the one
``AwarenessReading`` this module returns, so they cannot disagree.

Limits: ignorance is culpable only when the parse states a positive perception fact ("X sees
Z"); what a holder can see is what it believes placed, minus narrated "cannot see" facts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Belief, BeliefModel, Proposition

from .basics import SENSES, belief_about, blocked_view, somewhere, source_phrase, thing_named
from .phrasing import phrase

__all__ = [
    "AwarenessReading",
    "PerceptionSlip",
    "as_modelled_by",
    "perception_slips",
    "read_awareness",
    "visible_set",
]


class AwarenessReading(BeliefModel):
    """The one belief SimpleToM's three questions are read from."""

    holder: str
    key: Proposition
    aware: bool
    """Whether ``holder`` believes the key fact."""
    belief: Belief | None
    """The holder's belief about the key's variable (None: no belief at all)."""
    culpable: bool = False
    """The holder could have perceived the key fact with normal care (a perception fact)."""
    explanation: tuple[str, ...] = ()


def read_awareness(
    graph: BeliefGraph, holder: str, key: Proposition, *, at: int | None = None
) -> AwarenessReading:
    """Whether ``holder`` is aware of ``key``, with the belief that decides it.

    Ignorance is culpable when the parse says the holder could perceive the thing the key
    fact is about (a positive "X sees Z" perception fact) and still does not believe it.
    """
    b = belief_about(graph, (holder,), key, at)
    aware = b is not None and b.proposition.assigned == key.assigned
    lines: list[str] = []
    if b is None:
        lines.append(f"{holder} has no belief about whether {phrase(key)}: nothing showed it.")
    elif aware:
        lines.append(f"{holder} believes {phrase(key)} ({source_phrase(graph, b)}).")
    else:
        lines.append(
            f"{holder} believes instead that {phrase(b.proposition)} ({source_phrase(graph, b)})."
        )
    culpable = not aware and _can_perceive(graph, holder, key)
    if culpable:
        lines.append(
            f"{holder} could have perceived it with normal care, so the ignorance is culpable."
        )
    return AwarenessReading(
        holder=holder,
        key=key,
        aware=aware,
        belief=b,
        culpable=culpable,
        explanation=tuple(lines),
    )


def _can_perceive(graph: BeliefGraph, holder: str, key: Proposition) -> bool:
    things = {key.subject, key.value or ""}
    return any(
        e.kind == "narrate"
        and (p := e.proposition) is not None
        and p.subject == holder
        and p.relation.split()[0] in SENSES
        and not p.negated
        and p.value in things
        for e in graph.events
    )


def visible_set(
    graph: BeliefGraph, chain: Sequence[str], options: Sequence[str], *, at: int | None = None
) -> list[str]:
    """The options ``chain`` knows to be there: it believes where they are, and the outer
    holder is not said to be unable to see them. When the story places none of them, every
    option not blocked from view counts as visible. An option names the thing the story
    places when their words nest ("chocolate" for "chocolate bar").

    Examples
    --------
    >>> from beliefgraph.models import Event, ParsedStory, Proposition
    >>> on = Proposition(content_type="Location", subject="chocolate bar", relation="in",
    ...                  value="table")
    >>> g = BeliefGraph(ParsedStory(text="", sentences=(), actors=("Sam",), events=(
    ...     Event(id=1, kind="observe", actors=("Sam",), proposition=on),)))
    >>> visible_set(g, ("Sam",), ["apple", "chocolate"])
    ['chocolate']
    """
    chain = tuple(chain)
    placed = [
        o
        for o in options
        if belief_about(graph, chain, somewhere(thing_named(graph, o)), at) is not None
    ]
    pool = placed or list(options)
    if not chain:
        return pool
    return [o for o in pool if blocked_view(graph, chain[0], thing_named(graph, o), at) is None]


# -- what one character knows of another's perception ----------------------------------------
_UNAWARE = frozenset({"know", "knows", "knew", "notice", "notices", "noticed", "realize",
                      "realizes", "realized", "realise", "realises", "realised", "aware",
                      "see", "sees", "saw", "suspect", "suspects", "suspected"})  # fmt: skip
_SAW = r"(?:witness\w*|watch\w*|observ\w*|saw|seen|see(?:s|ing)?|spott\w*|spied|spying|notic\w*)"
_LEFT = r"(?:left|leav\w*|gone|departed|exit\w*|walked out|stepped out|went out|away)"
_NEGATED_VERB = re.compile(
    r"(?:\b(?:not|never|no longer|without|cannot|failed to|unable to)|n't)"
    r"(?:\s+(?:have|has|had|been|be|ever|even|once|yet|actually|really|get to|got to|\w+ly))*"
    r"\s+$",
    re.I,
)
"""A negation governing the verb that follows: "had not seen", "never once saw", "didn't
notice", "without seeing" (only auxiliaries and adverbs may stand between them, so a
negation in an earlier clause, "Bo, who never sleeps, saw it", does not count)."""


def _affirmed(pattern: re.Pattern[str], text: str) -> bool:
    """Whether ``pattern`` (ending in its verb) matches ``text`` at least once with no
    negation governing the verb: "Bo had not seen the move" is no witnessing."""
    return any(
        not _NEGATED_VERB.search(m.string[: m.start("verb")]) for m in pattern.finditer(text)
    )


def _denied_perception(graph: BeliefGraph, other: str, sentence_index: int, verbs: str) -> bool:
    """Whether the parse states only negated perceptions by ``other`` (relations matching
    ``verbs``) in the sentence ``sentence_index``, and at least one."""
    said = [
        p.negated
        for e in graph.events
        if e.kind == "narrate"
        and e.sentence_index == sentence_index
        and (p := e.proposition) is not None
        and p.subject == other
        and re.fullmatch(verbs, p.relation.split()[0], re.I)
    ]
    return bool(said) and all(said)


class PerceptionSlip(BeliefModel):
    """A narrated fact that ``knower`` does not know what ``other`` perceived.

    ``kind`` is ``witnessed`` ("Unbeknownst to Landon, Dakota had witnessed this action":
    Landon takes Dakota not to have seen his own moves) or ``left`` ("Unbeknownst to him,
    Gabriella had already left": he takes her to have seen what he saw after she left).
    """

    knower: str
    other: str
    kind: str
    fact: int
    """The event id of the narrated fact."""
    events: tuple[int, ...]
    """The events whose perception by ``other`` the knower gets wrong."""


def perception_slips(graph: BeliefGraph, knower: str, other: str) -> list[PerceptionSlip]:
    """Where the story says ``knower`` is wrong about what ``other`` perceived.

    A narrated negated knowing ("X does not know / did not notice ...", as a parse words
    "unbeknownst to X" or "little did X know") whose words, or whose sentence, say that
    ``other`` witnessed (watched, observed, saw) or had left, not negated ("Bo had not seen
    it", or a parse stating only negated perceptions by ``other`` in that sentence, is no
    slip: the knower is right). A witnessing hides from the
    knower ``other``'s perception of the knower's own moves since the previous such fact; a
    departure makes the knower take ``other`` to have perceived what the knower perceived
    after ``other``'s last exit.
    """
    saw = re.compile(rf"\b{re.escape(other)}\b[^.;:]*?\b(?P<verb>{_SAW})\b", re.I)
    left = re.compile(rf"\b{re.escape(other)}\b[^.;:]*?\b(?P<verb>{_LEFT})\b", re.I)
    steps = {s.event.id: s for s in graph.timeline.steps}
    out: list[PerceptionSlip] = []
    since = 0
    for e in graph.events:
        p = e.proposition
        if (
            e.kind != "narrate"
            or p is None
            or not p.negated
            or p.subject != knower
            or p.relation.split()[0].lower() not in _UNAWARE
        ):
            continue
        said = f"{p.value or ''} {e.sentence}"
        # A negated perception ("Bo had not seen the move"), in the words or in the parse,
        # is no witnessing: the knower is then right about it.
        if _affirmed(saw, said) and not _denied_perception(graph, other, e.sentence_index, _SAW):
            hidden = tuple(t for t, s in steps.items()
                           if since < t < e.id and s.event.kind == "move"
                           and s.event.agent == knower and other in s.perceivers)  # fmt: skip
            # and the witnessing itself, where the parse made it a look of its own
            # ("Dakota had witnessed this action": Dakota observes the belt on the hooks)
            looks = tuple(t for t, s in steps.items()
                          if hidden and t > hidden[0] and s.event.kind == "observe"
                          and other in s.event.actors
                          and s.event.sentence_index <= e.sentence_index)  # fmt: skip
            hidden = tuple(sorted({*hidden, *looks}))
            if hidden:
                out.append(PerceptionSlip(knower=knower, other=other, kind="witnessed",
                                          fact=e.id, events=hidden))  # fmt: skip
                since = e.id
        elif _affirmed(left, said) and not _denied_perception(
            graph, other, e.sentence_index, _LEFT
        ):
            exits = [t for t, s in steps.items()
                     if t < e.id and s.event.kind == "exit"
                     and other in s.event.actors]  # fmt: skip
            start = exits[-1] if exits else since
            seen = tuple(t for t, s in steps.items()
                         if start < t < e.id and knower in s.perceivers
                         and other not in s.perceivers)  # fmt: skip
            if seen:
                out.append(PerceptionSlip(knower=knower, other=other, kind="left",
                                          fact=e.id, events=seen))  # fmt: skip
                since = e.id
    return out


def as_modelled_by(graph: BeliefGraph, knower: str, other: str) -> BeliefGraph:
    """The graph with ``other``'s perception as ``knower`` takes it to be (``perception_slips``
    applied), for reading the chain (``knower``, ``other``); ``graph`` itself when the story
    says the knower is right about it.

    Only that chain is read from the result: the other chains see the changed perceivers too.
    """
    slips = perception_slips(graph, knower, other)
    if not slips:
        return graph
    hide = {t for s in slips if s.kind == "witnessed" for t in s.events}
    add = {t for s in slips if s.kind == "left" for t in s.events}
    events = []
    for step in graph.timeline.steps:
        who = set(step.perceivers)
        if step.event.id in hide:
            who.discard(other)
        if step.event.id in add:
            who.add(other)
        events.append(step.event.replaced(perceivers=tuple(sorted(who))))
    story = graph.story.model_copy(update={"events": tuple(events)})
    return BeliefGraph(story, perception=graph.perception, trust=graph.trust,
                       max_order=graph.max_order)  # fmt: skip
