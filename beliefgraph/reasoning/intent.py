"""Aims: what someone meant to do to a thing's availability when they moved it.

A story says why a thing was moved in its own words: "to get rid of the hat", "to make the
watermelon easy for both to grab", "to showcase the orange on the dining table", "to keep it
for himself". A parse keeps those as the mover's Desire/Intention propositions ("Hadley plan:
to get rid of the hat"). ``aim_of`` reads them as one of three aims:

- ``less``: the thing is put out of others' reach (rid, dispose, hide, deter, harder to
  access, far from sight; or to relieve someone's discomfort, which moves it away from them);
- ``more``: it is brought within reach or shown (show, display, easy to grab, handy, for
  someone);
- ``keep``: kept for the mover (for himself, his own collection).

An intention counts when it names the thing (or the container carrying it), or when it is
stated within one sentence of the mover's move; the latest one the reading chain believes
wins, as desires do (``current_desire``). A rule that finds no aim returns None, never a
guess: an aim the story does not word is not read into it.

Limits: the cue words are ordinary English (``LESS``, ``MORE``, ``KEEP``); an intention worded
only by its outcome ("to keep the peace") names no aim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Event
from beliefgraph.text import normalise

from .phrasing import phrase
from .readings import Cite, Reading

__all__ = ["INTENDING", "KEEP", "LESS", "MORE", "Aim", "aim_of", "aim_words", "moves_of"]

Aim = Literal["less", "more", "keep"]

INTENDING = frozenset({"want", "wants", "plan", "plans", "intend", "intends", "decide",
                       "decides", "aim", "aims", "hope", "hopes", "try", "tries", "mean",
                       "means", "wish", "wishes", "determined", "resolve", "resolves",
                       "goal", "purpose", "desire", "desires", "think", "thinks"})  # fmt: skip
"""Relations (first word) a parse gives a desire or an intention."""

LESS = (r"get(?:ting)? rid|rid (?:\w+ )*of|rid\b|dispos\w*|discard\w*|throw\w* (?:\w+ )*away|"
        r"thr[eo]w\w* out|toss\w*|trash\w*|bin\b|eliminat\w*|remov\w*|hid(?:e|es|ing|den)?\b|"
        r"conceal\w*|deter\w*|discourag\w*|harder|less (?:convenient|accessible|visible|"
        r"available|reachable)|out of (?:sight|reach|view)|away from|far away|far from|"
        r"distance\w*|separat\w*|banish\w*|alleviat\w*|relieve\w*|spare\w*|"
        r"protect\w* (?:\w+ )*from|difficult|inconvenien\w*")  # fmt: skip
"""Cue words of putting a thing out of others' reach (checked before ``MORE``: "less
convenient" is not "convenient")."""
MORE = (r"show\w*|display\w*|showcas\w*|exhibit\w*|admir\w*|impress\w*|easy|easier|"
        r"grab|reach|handy|accessible|access|available|convenien\w*|share\w*|offer\w*|"
        r"give|giving|present\w*|preserv\w* (?:\w+ )*for|save\w* (?:\w+ )*for|enjoy\w*|"
        r"for (?:both|everyone|everybody|all|others|the others)")  # fmt: skip
"""Cue words of bringing a thing within reach or into view."""
KEEP = (r"keep\w* (?:\w+ )*(?:for )?(?:himself|herself|themselves|themself)|"
        r"(?:for|to) (?:himself|herself|themselves|themself)|his own|her own|their own|"
        r"(?:his|her|their) collection|hoard\w*|exclusiv\w*")  # fmt: skip
"""Cue words of keeping a thing for oneself."""

_LESS, _MORE, _KEEP = (re.compile(rf"\b(?:{c})", re.I) for c in (LESS, MORE, KEEP))


def aim_words(text: str, others: Sequence[str] = ()) -> Aim | None:
    """The aim an intention worded ``text`` states, or None.

    ``others`` are the other characters: an intention "for Dakota" or "so that Felix can
    have it" brings the thing to them (``more``).

    Examples
    --------
    >>> aim_words("to get rid of the hat"), aim_words("to make the grapes less convenient")
    ('less', 'less')
    >>> aim_words("to make the watermelon easy for both to grab")
    'more'
    >>> aim_words("to keep the tie for himself"), aim_words("to explore further")
    ('keep', None)
    >>> aim_words("to preserve the cabbage for Gabriella", ["Gabriella"])
    'more'
    """
    if _KEEP.search(text):
        return "keep"
    if _LESS.search(text):
        return "less"
    if _MORE.search(text):
        return "more"
    for name in others:
        if re.search(rf"\bfor {re.escape(name)}\b|\b{re.escape(name)} (?:to|could|can) ",
                     text):  # fmt: skip
            return "more"
    return None


def moves_of(graph: BeliefGraph, thing: str) -> list[Event]:
    """The events that move ``thing`` or a container the story places it in, in order."""
    want = normalise(thing)
    carriers = {want}
    for e in graph.events:
        p = e.proposition
        if p is not None and p.relation == "in" and _same(p.subject, want) and p.value:
            carriers.add(normalise(str(p.value)))
        if p is not None and p.relation == "contains" and _same(str(p.value or ""), want):
            carriers.add(normalise(p.subject))
    return [e for e in graph.events
            if e.kind == "move" and e.obj is not None
            and (normalise(e.obj) in carriers or _same(e.obj, want))]  # fmt: skip


def _same(name: str, want: str) -> bool:
    """Whether ``name`` names the thing ``want`` (equal, or the same head noun)."""
    have = normalise(name).split()
    words = want.split()
    return bool(have and words) and (have == words or have[-1] == words[-1])


def aim_of(
    graph: BeliefGraph,
    mover: str,
    thing: str,
    *,
    chain: Sequence[str] = (),
) -> Reading:
    """Why ``mover`` moved ``thing``, as ``chain`` believes it (default: the narration):
    ``less``, ``more`` or ``keep`` (module docstring), or None when no stated intention of
    the mover's says.

    Examples
    --------
    >>> from beliefgraph.models import Event, ParsedStory, Proposition
    >>> plan = Proposition(content_type="Desire/Intention", subject="Ann", relation="plan",
    ...                    value="to get rid of the hat")
    >>> s = ParsedStory(text="", sentences=(), actors=("Ann",), events=(
    ...     Event(id=1, kind="narrate", proposition=plan, sentence_index=0),
    ...     Event(id=2, kind="move", actors=("Ann",), obj="hat", destination="bin",
    ...           sentence_index=1)))
    >>> aim_of(BeliefGraph(s), "Ann", "hat").value
    'less'
    """
    chain = tuple(chain)
    moved = [e for e in moves_of(graph, thing) if e.agent == mover]
    near = {i for e in moved for i in (e.sentence_index - 1, e.sentence_index,
                                       e.sentence_index + 1)}  # fmt: skip
    carriers = {normalise(thing)} | {normalise(e.obj) for e in moved if e.obj}
    others = [a for a in graph.actors if a != mover]
    best: tuple[int, Aim, Event] | None = None
    for e in graph.events:
        p = e.proposition
        if (
            e.kind != "narrate"
            or p is None
            or p.subject != mover
            or p.negated
            or not isinstance(p.value, str)
            or p.relation.split()[0].lower() not in INTENDING
        ):
            continue
        words = normalise(p.value).split()
        names = any(c.split() and c.split()[-1] in words for c in carriers)
        if not names and e.sentence_index not in near:
            continue
        aim = aim_words(p.value, others)
        if aim is None:
            continue
        if chain and graph.belief(chain, variable=p.variable) is None:
            continue  # the reading chain never learnt of this intention
        if best is None or e.id >= best[0]:
            best = (e.id, aim, e)
    if best is None:
        return Reading(value=None)
    _, aim, e = best
    assert e.proposition is not None
    return Reading(
        value=aim,
        because=(f"{phrase(e.proposition)} ({e.cite()})",),
        cites=(Cite(holders=chain, proposition=e.proposition, events=(e.id,)),),
    )
