"""Attitudes: whether someone likes or dislikes a thing, however the parse worded it.

A parse states an attitude in many shapes: a typed preference ("Paxton likes hat." read from
a template: relation ``like``), a mental state ("Hadley feel: despises the hat", "Marcos
love: the melon"), a trait ("Emma be: fond of boots"). ``attitude_of`` reads them all as one
polarity, ``like`` or ``hate``, with the words the story used, so a question about an
attitude is answered from the graph whichever parser built it; the graph itself keeps the
parse's wording (other readings align rows by those words).

Attitudes change like desires: of the attitudes the chain believes the holder has towards
the thing, the one formed last wins ("Ann hated the hat, but now she loves it").

Limits: the verbs are the ordinary English ones for liking and disliking (``LIKE``,
``HATE``); the thing must be named in the words after the verb (its head noun at least).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Belief
from beliefgraph.text import normalise

from .phrasing import chain_prefix, phrase
from .readings import Cite, Reading

__all__ = ["HATE", "LIKE", "attitude_of", "attitude_words"]

LIKE = ("like", "likes", "liked", "love", "loves", "loved", "adore", "adores", "adored",
        "enjoy", "enjoys", "enjoyed", "admire", "admires", "admired", "cherish", "cherishes",
        "cherished", "treasure", "treasures", "treasured", "fond of", "keen on",
        "fancy", "fancies", "prefer", "prefers", "preferred", "fascinated by",
        "fascinated with", "passion for", "passionate about", "crazy about", "obsessed with",
        "in love with")  # fmt: skip
"""Verbs (and adjective phrases) of liking."""
HATE = ("hate", "hates", "hated", "dislike", "dislikes", "disliked", "despise", "despises",
        "despised", "detest", "detests", "detested", "loathe", "loathes", "loathed", "abhor",
        "abhors", "abhorred", "can't stand", "cannot stand", "could not stand",
        "couldn't stand", "can not stand", "disgusted by", "averse to", "irritated by",
        "irked by", "annoyed by", "aversion to", "disdain for", "contempt for",
        "repulsed by", "repelled by", "can't bear", "cannot bear", "could not bear",
        "couldn't bear")  # fmt: skip
"""Verbs (and adjective phrases) of disliking."""

_LEAD = (r"(?:(?:feels?|felt|feeling|is|was|be|being|to|really|truly|deeply|absolutely|"
         r"utterly|secretly|always|had|has|have|never|simply|just|so|very|quite|a|an|strong|"
         r"great|deep|growing)\s+)*")  # fmt: skip
_VERB = "|".join(sorted((re.escape(v) for v in LIKE + HATE), key=len, reverse=True))
_ATTITUDE = re.compile(rf"^{_LEAD}(?P<verb>{_VERB})\b\s*(?P<rest>.*?)[.!]?$")
_NEGATION = re.compile(r"\b(?:not|never|no longer|n't)\b")


def attitude_words(relation: str, value: str | None) -> tuple[str, str] | None:
    """The polarity (``like`` / ``hate``) and the object words of an attitude worded as
    ``relation`` + ``value``, or None when they word none (or deny one).

    Examples
    --------
    >>> attitude_words("feel", "despises the hat")
    ('hate', 'the hat')
    >>> attitude_words("love", "the melon"), attitude_words("be", "fond of boots")
    (('like', 'the melon'), ('like', 'boots'))
    >>> attitude_words("feel", "sad"), attitude_words("feel", "does not like the hat")
    (None, None)
    """
    text = " ".join(f"{relation} {value or ''}".lower().replace("\u2019", "'").split())
    m = _ATTITUDE.match(text)
    if m is None or _NEGATION.search(text[: m.start("verb")]):
        return None
    verb = m.group("verb")
    return ("like" if verb in LIKE else "hate"), m.group("rest").strip()


def _names(words: str, thing: str) -> bool:
    """Whether ``words`` name ``thing``: all its words, or its head noun after "the sight
    of", "every", ... (the thing is the last noun the words end on or contain)."""
    have = set(normalise(words).split())
    want = normalise(thing).split()
    if not want:
        return False
    return set(want) <= have or (want[-1] in have and len(want) > 1)


def attitude_of(
    graph: BeliefGraph,
    holder: str,
    thing: str,
    *,
    chain: Sequence[str] | None = None,
    at: int | None = None,
) -> Reading:
    """``holder``'s attitude to ``thing`` as ``chain`` believes it (default: the holder's
    own): ``like``, ``hate``, or None when the graph holds none.

    Examples
    --------
    >>> from beliefgraph.models import Event, ParsedStory, Proposition
    >>> def said(rel, val, i):
    ...     p = Proposition(content_type="Emotion", subject="Ann", relation=rel, value=val)
    ...     return Event(id=i, kind="narrate", proposition=p)
    >>> s = ParsedStory(text="", sentences=(), actors=("Ann",), events=(
    ...     said("feel", "despises the hat", 1), said("love", "the hat now", 2)))
    >>> attitude_of(BeliefGraph(s), "Ann", "hat").value
    'like'
    """
    chain = (holder,) if chain is None else tuple(chain)
    best: tuple[int, str, Belief] | None = None
    for var in graph.variables:
        if len(var) < 3 or var[0] != holder or not isinstance(var[1], str):
            continue
        b = graph.belief(chain, variable=var, at=at)
        if b is None or b.proposition.assigned is not True:
            continue
        p = b.proposition
        read = attitude_words(p.relation, p.value if isinstance(p.value, str) else None)
        if read is None or not _names(read[1], thing):
            continue
        if best is None or b.start >= best[0]:
            best = (b.start, read[0], b)
    if best is None:
        return Reading(value=None)
    _, polarity, b = best
    return Reading(
        value=polarity,
        because=(f"{chain_prefix(chain)} {phrase(b.proposition)}",),
        cites=(Cite(holders=chain, proposition=b.proposition, events=b.provenance),),
    )
