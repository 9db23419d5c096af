"""Matching a tracker's answer to a benchmark's option strings, and reading options as
propositions to ask the graph about.

``normalise`` is ``beliefgraph.text.normalise`` (re-exported here for the adapters).
``read_option`` reads an option sentence with the offline grammar ("Carlos believes the
valve is open" -> "the valve is open"); ``choose_by_belief`` picks the option a holder's
beliefs in the graph support, by what each proposition is about (thing, attribute, value),
not by the words the option shares with the graph's rendering.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Sequence
from typing import Literal

from beliefgraph.models import Belief, Proposition
from beliefgraph.solvers.outcomes import outcome_of
from beliefgraph.text import normalise

__all__ = ["Verdict", "choose_by_belief", "match_choice", "normalise", "read_option", "verdict"]


def match_choice(value: str | None, choices: tuple[str, ...]) -> int | None:
    """The index of the option that names ``value``, or None.

    Examples
    --------
    >>> match_choice("storage locker", ("Backpack", "Suitcase", "Storage locker"))
    2
    """
    if value is None:
        return None
    wanted = normalise(value)
    for i, c in enumerate(choices):
        if normalise(c) == wanted:
            return i
    return None


# -- options read as propositions and asked of the graph ------------------------------------
def _w(text: str) -> frozenset[str]:
    """A word list written as one block of text."""
    return frozenset(text.split())


Verdict = Literal[-1, 0, 1]
"""What one belief says of an option's proposition: 1 supports, -1 contradicts, 0 neither."""

_NO_CONTENT = _w(
    "a an the his her its their my our your this that these those some all any is are was "
    "were be been being become becomes became has have had no not now still currently very "
    "of to and in at with for by it they them he she"
)
_CONTENTS = frozenset(("contain", "contains", "have", "has", "hold", "holds", "had"))


def read_option(text: str) -> tuple[Proposition, ...]:
    """The propositions the offline grammar reads from an option sentence.

    A belief option ("Carlos believes the valve is open") yields what is believed; a sentence
    the grammar does not read yields nothing (the caller falls back, and says so).

    Examples
    --------
    >>> [p.render() for p in read_option("Carlos believes the water valve is open.")]
    ['the water valve is open']
    >>> [p.render() for p in read_option("Miguel believes the chocolate has melted.")]
    ['the chocolate melts', 'the chocolate is melted']
    >>> read_option("Zzz.")
    ()
    """
    return _read_option(text.strip())


@functools.lru_cache(maxsize=1 << 12)
def _read_option(text: str) -> tuple[Proposition, ...]:
    from beliefgraph.parsers import RulesParser

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an unread option is reported by returning nothing
        parsed = RulesParser(strict=False).parse(text)
    out: list[Proposition] = []
    for e in parsed.events:
        p = e.proposition
        if p is None or (p.subject == "world" and p.relation == "state"):
            continue  # the grammar did not read it: an uninterpreted sentence
        p = p.about if p.content_type == "Epistemic" and p.about is not None else p
        out.append(p)
        # A change ("the chocolate has melted") also says the state it leaves ("melted"),
        # which is how a graph holds it once the change is narrated or seen.
        for thing, state in [*outcome_of(p, None), *_described(p)]:
            out.append(Proposition(content_type="Contents/Physical State", subject=thing,
                                   relation="be", value=state))  # fmt: skip
    return tuple(out)


def _described(p: Proposition) -> list[tuple[str, str]]:
    """What a contents value says of the thing held: "the vase contains wilted flowers" also
    says the flowers are wilted (a graph may hold that state of the flowers alone)."""
    if p.negated or p.relation.lower().split(" ")[0] not in _CONTENTS or not p.value:
        return []
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'-]*", p.value.lower())
             if w not in _NO_CONTENT]  # fmt: skip
    if len(words) < 2 or any(w in ("of", "with") for w in words):
        return []
    return [(words[-1], " ".join(words[:-1]))]


def _content(text: str | None) -> frozenset[str]:
    """The content words of a value, singular; words of degree and direction kept as they
    are ("less" is no plural)."""
    words = (w.lower() for w in re.findall(r"[A-Za-z][A-Za-z'-]*", text or ""))
    return frozenset(w if w in _POLAR else normalise(w) for w in words if w not in _NO_CONTENT)


def _head(name: str) -> str:
    """The head noun of a name ("his fishing net" -> "net", "bag of flour" -> "bag")."""
    before_of = normalise(name).split(" of ")[0].split()
    return before_of[-1] if before_of else ""


def _same_thing(a: str, b: str) -> bool:
    """Whether two names may name one thing: one's head noun is a word of the other
    ("the water valve" / "the valve", "the tomatoes" / "the bag of tomatoes")."""
    ha, hb = _head(a), _head(b)
    return bool(ha and hb) and (ha in normalise(b).split() or hb in normalise(a).split())


def _reading(p: Proposition) -> tuple[tuple[str, ...], frozenset[str], bool]:
    """(what the proposition is about, its value's content words, negated): a state by its
    key's relation and scale, contents and places by their relation, any other by its verb."""
    value, negated = p.value or "", p.negated
    if value.lower().startswith("no "):  # "the branch has no ripe mangoes"
        value, negated = value[3:], not negated
    relation = p.relation.lower()
    if p.key is not None:
        return ("state", p.key[1], p.key[2]), _content(value or relation), negated
    if relation.split(" ")[0] in _CONTENTS:
        return ("contains",), _content(value), negated
    if relation == "in":
        return ("in",), _content(value), negated
    return ("act", normalise(relation.split(" ")[0])), _content(value), negated


_DEGREE = frozenset(("less", "more", "longer", "never", "barely", "hardly", "too"))
"""Words that turn a value into another ("less fresh" is not "fresh")."""
_OPPOSED = (frozenset(("on", "off")), frozenset(("up", "down")), frozenset(("less", "more")))
"""Words that make two otherwise equal values opposites ("turned on" / "turned off")."""
_POLAR = _DEGREE | frozenset().union(*_OPPOSED)


_NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non")


def _negated_word(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether a word of one value is a word of the other with a negating prefix ("ripe" /
    "unripe", "locked" / "unlocked", "visible" / "invisible").

    Examples
    --------
    >>> _negated_word(frozenset({"unripe", "mango"}), frozenset({"ripe", "mango"}))
    True
    >>> _negated_word(frozenset({"ripe"}), frozenset({"sweet"}))
    False
    """
    pairs = [(x, y) for x in a for y in b] + [(y, x) for x in a for y in b]
    return any(
        len(base) > 2 and word == p + base for word, base in pairs for p in _NEGATING_PREFIXES
    )


def _same_value(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two values' content words say the same: one holds the other's words, or they
    share a word ("ripe and perfect" / "ripe and of high quality"), with the same words of
    degree and direction ("turned on" is not "turned off") and no word negated in the other
    ("ripe and sweet" is not "unripe and sweet")."""
    if not a or not b or (a & _POLAR) != (b & _POLAR) or _negated_word(a, b):
        return False
    return a <= b or b <= a or bool((a & b) - _POLAR)


def _opposite(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether two values are the same words but for an opposed pair ("on" / "off"), or one
    holds a word the other negates by its prefix ("ripe mangoes" / "unripe mangoes")."""
    return (a - _POLAR == b - _POLAR and (a ^ b) in _OPPOSED) or _negated_word(a, b)


def verdict(belief: Proposition, option: Proposition) -> Verdict:
    """What a held proposition says of an option's: the same thing and attribute with the
    same value supports it (contradicts it when one of them is negated); a different value on
    an attribute that holds one value at a time (a state's scale, a place, contents)
    contradicts it; anything else says nothing.

    Examples
    --------
    >>> from beliefgraph.models import Proposition
    >>> def state(subject, value, negated=False):
    ...     return Proposition(content_type="Contents/Physical State", subject=subject,
    ...                        relation="be", value=value, negated=negated)
    >>> verdict(state("valve", "open"), state("water valve", "open"))
    1
    >>> verdict(state("valve", "closed"), state("water valve", "open"))
    -1
    >>> verdict(state("net", "torn apart", negated=True), state("fishing net", "torn apart"))
    -1
    >>> verdict(state("valve", "open"), state("cornfield", "flooded"))
    0
    >>> verdict(state("projector", "turned on", negated=True), state("projector", "turned off"))
    1
    """
    if not _same_thing(belief.subject, option.subject):
        return 0
    about_b, value_b, neg_b = _reading(belief)
    about_o, value_o, neg_o = _reading(option)
    if about_b != about_o:
        return 0
    if _same_value(value_b, value_o):
        return 1 if neg_b == neg_o else -1
    if _opposite(value_b, value_o):
        return -1 if neg_b == neg_o else 1
    exclusive = about_o[0] in ("contains", "in") or (about_o[0] == "state" and about_o[2] != "")
    if exclusive and not neg_b and not neg_o and value_b and value_o:
        return -1
    return 0


def choose_by_belief(
    held: Sequence[Belief], options: Sequence[Sequence[Proposition]]
) -> tuple[int, Belief] | None:
    """The option the holder's beliefs single out, with the belief that decides, or None.

    ``held`` are the holder's beliefs at the moment asked about; ``options`` the propositions
    each option reads as (``read_option``). The holder's latest belief that bears on the
    options differently decides: the one option it supports, else (with two options) the one
    it does not contradict.

    Examples
    --------
    >>> from beliefgraph.models import Belief, Proposition
    >>> def state(value, negated=False):
    ...     return Proposition(content_type="Contents/Physical State", subject="valve",
    ...                        relation="be", value=value, negated=negated)
    >>> held = [Belief(holders=("Carlos",), proposition=state("closed"), start=2,
    ...                truth_status="False", knowledge_access="Private",
    ...                representation="Explicit", mental_source="Narration")]
    >>> choose_by_belief(held, [[state("open")], [state("closed")]])[0]
    1
    >>> choose_by_belief(held, [[state("hot")], [state("cold")]]) is None
    True
    """
    # Latest first; at one time step a state stated outright before one shown ended (a
    # narrated belief "X thinks the sea is calm" ends X's other wordings of that state).
    for b in sorted(held, key=lambda b: (b.start, not b.proposition.negated), reverse=True):
        said = [_option_verdict(b.proposition, props) for props in options]
        if len(set(said)) == 1:
            continue  # this belief does not tell the options apart
        if said.count(1) == 1:
            return said.index(1), b
        if len(options) == 2 and said.count(-1) == 1 and 1 not in said:
            return said.index(0), b
    return None


def _option_verdict(belief: Proposition, props: Sequence[Proposition]) -> Verdict:
    said = [verdict(belief, p) for p in props]
    if -1 in said:
        return -1
    return 1 if 1 in said else 0
