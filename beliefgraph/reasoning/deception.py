"""Assertions and lies: lying(s, p, t) = s asserts p at t while believing not-p just before t.

Repeating a false belief is not lying, and a lie stays a lie after the world later makes it
true. Questions, requests and promises are not assertions.

A claim about where a thing went need not be worded as the speaker's belief is ("maybe the
cat dragged it away", "it is gone" against "the sticker is in Leo's pocket"): when
the speaker holds no belief about the claim itself, a claim that names a thing and puts it
away from the one place the speaker believes it is (another place, or gone, lost, missing)
asserts what the speaker believes false (``whereabouts``).
"""

from __future__ import annotations

import re

from beliefgraph.errors import BeliefGraphError
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Event, Proposition
from beliefgraph.text import normalise

from .basics import belief_about, missed_events, somewhere
from .phrasing import phrase, thinks_clause
from .readings import Cite, Reading

__all__ = ["NOT_ASSERTIONS", "lying", "things_claimed", "utterances", "whereabouts"]


NOT_ASSERTIONS = frozenset({"ask", "request", "promise"})


def utterances(
    graph: BeliefGraph,
    *,
    speaker: str | None = None,
    hearer: str | None = None,
    claim: Proposition | None = None,
    at: int | None = None,
) -> list[Event]:
    """The assertions made up to ``at``, oldest first (questions, requests and promises, and
    a hearer's private reading of an utterance, are not assertions of the speaker)."""
    end = graph.end if at is None else at
    out = []
    for e in graph.events[:end]:
        p = e.proposition
        if e.kind != "tell" or p is None or e.agent is None:
            continue
        if e.agent not in (e.perceivers or ()):
            continue  # a hearer's reading of what was said
        if p.relation in NOT_ASSERTIONS and p.subject == e.agent:
            continue
        if speaker is not None and e.agent != speaker:
            continue
        if hearer is not None and e.hearers and hearer not in e.hearers:
            continue
        if claim is not None and p.variable != claim.variable:
            continue
        out.append(e)
    if not out and claim is not None:
        # The claim worded another way ("the cat dragged it out of the house" for "the
        # sticker is outside"): the assertions about the same placed thing.
        wanted = set(things_claimed(graph, claim))
        if wanted:
            out = [e for e in utterances(graph, speaker=speaker, hearer=hearer, at=at)
                   if e.proposition is not None
                   and wanted & set(things_claimed(graph, e.proposition))]  # fmt: skip
    return out


_GONE = re.compile(
    r"\b(?:gone|lost|missing|vanish\w*|disappear\w*|stolen|away|out of|outside|took|taken|"
    r"fell|fallen|dropped)\b",
    re.I,
)
"""Words of a claim that a thing left where it was."""


_KNOW = frozenset({"know", "knows", "knew", "remember", "remembers", "see", "saw", "seen"})
"""Relations of a speaker's denial that they know where a thing is ("I don't know where the
sticker went" from one who hid it)."""


def things_claimed(graph: BeliefGraph, claim: Proposition) -> list[str]:
    """The placed things (of the story's locations) a claim is about: its subject, or a
    thing its value names."""
    placed = {v[0] for v in graph.variables if len(v) == 2 and v[1] == "in"}
    words = set(normalise(f"{claim.subject} {claim.value or ''}").split())
    words |= {w.rstrip("s") for w in words}
    return sorted(t for t in placed
                  if normalise(t).split() and normalise(t).split()[-1] in words)  # fmt: skip


def _seen_gone(graph: BeliefGraph, who: str, place: Proposition, since: int, until: int) -> bool:
    """Whether ``who`` perceived, after ``since`` and before ``until``, that ``place`` no
    longer holds (a look that finds the desk empty)."""
    for step in graph.timeline.steps[since : until - 1]:
        q = step.event.proposition
        if (who in step.perceivers and q is not None and q.negated
                and q.subject == place.subject and q.relation == place.relation
                and normalise(str(q.value or "")) == normalise(str(place.value))):  # fmt: skip
            return True
    return False


def whereabouts(graph: BeliefGraph, tell: Event) -> Reading | None:
    """Whether ``tell`` puts a thing away from the one place its speaker believes it is, or
    None when the claim places nothing the speaker holds a place for."""
    p, s = tell.proposition, tell.agent
    if p is None or s is None:
        return None
    said = normalise(f"{p.relation} {p.value or ''}")
    for thing in things_claimed(graph, p):
        own = belief_about(graph, (s,), somewhere(thing), tell.id - 1)
        if own is None or own.proposition.negated or not own.proposition.value:
            continue
        if _seen_gone(graph, s, own.proposition, own.start, tell.id):
            continue  # the speaker since saw it is not there: no place believed
        place = normalise(str(own.proposition.value))
        if place and place.split()[-1] in said.split():
            continue  # the claim names the place the speaker believes: not away from it
        denies = p.negated and p.subject == s and p.relation.split()[0] in _KNOW
        if denies or p.relation == "in" or _GONE.search(f"{p.relation} {p.value or ''}"):
            cite = Cite(holders=(s,), proposition=own.proposition, events=own.provenance)
            return Reading(
                value=True,
                because=(
                    f"{s} said that {phrase(p)} ({tell.cite()}), when {s} thought "
                    f"{phrase(own.proposition)}",
                ),
                cites=(cite,),
            )
    return None


def lying(graph: BeliefGraph, tell: Event) -> Reading:
    """lying(s, p, t): ``s`` asserts ``p`` at ``t`` while believing not-p at ``t``.

    The speaker's belief is read just before the telling, so a speaker repeating a false
    belief is not lying, and a lie stays a lie after the world later makes it true.
    """
    p = tell.proposition
    s = tell.agent
    if p is None or s is None:
        raise BeliefGraphError(f"event {tell.id} is not an assertion")
    own = belief_about(graph, (s,), p, tell.id - 1)
    said = f"{s} said that {phrase(p)} ({tell.cite()})"
    if own is None and (away := whereabouts(graph, tell)) is not None:
        return away
    if own is None:
        return Reading(
            value=False,
            because=(f"{said}, and {s} had no belief about it either way",),
            cites=(Cite(holders=(s,), proposition=p, held=False, events=(tell.id,)),),
        )
    cite = Cite(holders=(s,), proposition=own.proposition, events=own.provenance)
    if own.proposition.assigned == p.assigned:
        clauses = [f"{thinks_clause(own)}, so {s} said what {s} believed"]
        missed = missed_events(graph, (s,), p, tell.id - 1)
        if missed:
            clauses.append(f"{s} did not see {graph.events[missed[-1] - 1].cite()}")
        return Reading(value=False, because=tuple(clauses), cites=(cite,))
    return Reading(
        value=True,
        because=(f"when {said}, {s} thought {phrase(own.proposition)}",),
        cites=(cite,),
    )
