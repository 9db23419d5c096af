"""What a belief is about."""

from __future__ import annotations

import re

from pydantic import Field

from .base import BeliefModel
from .labels import ContentType

__all__ = ["Proposition"]

# Relations whose subject has exactly one value at a time (one place, one content).
_FUNCTIONAL_RELATIONS = frozenset({"in", "contains"})


class Proposition(BeliefModel):
    """A typed, atomic statement about the story world or about another actor's mind.

    A proposition assigns a ``value`` to a *variable*. For a location the variable is the
    object's place and the value the container (``ball in basket``); for contents it is what a
    container holds (``box contains cup``); every other relation is a yes/no fact whose variable
    is the whole triple (``Aiden loves tangerine``).

    Examples
    --------
    >>> p = Proposition(content_type="Location", subject="ball", relation="in", value="basket")
    >>> p.variable, p.assigned, p.render()
    (('ball', 'in'), 'basket', 'the ball is in the basket')
    """

    content_type: ContentType
    """The OmniToM content type of what is asserted."""
    subject: str = Field(min_length=1)
    """The entity or actor the statement is about."""
    relation: str = Field(min_length=1)
    """``in`` for a location, ``contains`` for contents; a verb lemma otherwise (``love``)."""
    value: str | None = None
    """The container, object or complement; None for intransitive facts."""
    target: str | None = None
    """A second complement: the destination of a move ("to the box")."""
    negated: bool = False
    """True for "there is no hat in the box"."""
    holder: str | None = None
    """For Epistemic content: the actor whose mental state this is about."""
    about: Proposition | None = None
    """For Epistemic content: the proposition that ``holder`` believes."""

    @property
    def variable(self) -> tuple[str, ...]:
        """The key a belief assigns a value to (beliefs about one variable compete)."""
        if self.relation in _FUNCTIONAL_RELATIONS and not self.negated:
            return (self.subject, self.relation)
        if self.target is not None:
            return (self.subject, self.relation, self.value or "", self.target)
        if self.about is not None:  # what was said is part of which telling it was
            return (self.subject, self.relation, self.value or "", self.about.render())
        return (self.subject, self.relation, self.value or "")

    @property
    def assigned(self) -> str | bool:
        """The value this proposition gives its variable."""
        if self.relation in _FUNCTIONAL_RELATIONS and not self.negated:
            return self.value or ""
        return not self.negated

    def render(self) -> str:
        """Third-person English for tables and explanations."""
        if self.content_type == "Epistemic" and self.holder and self.about:
            return f"{self.holder} thinks {self.about.render()}"
        subject = _the(self.subject)
        if self.relation == "in":
            neg = " not" if self.negated else ""
            return f"{subject} is{neg} in {_the(self.value or '?')}"
        if self.relation == "contains":
            neg = " does not contain" if self.negated else " contains"
            return f"{subject}{neg} {_the(self.value or '?')}"
        verb = _third_person(self.relation) if not self.negated else _negated(self.relation)
        # "is hot", not "is the hot": a copula's complement is a property, not a thing.
        value = self.value if self.relation.split(" ")[0] == "be" else _the(self.value or "")
        tail = f" {value}" if self.value else ""
        if self.target:
            tail += f" to {_the(self.target)}"
        if self.about is not None:
            tail += f" that {self.about.render()}"
        return f"{subject} {verb}{tail}"


_IRREGULAR = {"have": "has", "be": "is", "do": "does", "go": "goes"}


def _negated(lemma: str) -> str:
    """ "be" -> "is not", "love" -> "does not love"."""
    head, _, rest = lemma.partition(" ")
    out = "is not" if head == "be" else f"does not {head}"
    return f"{out} {rest}" if rest else out


def _third_person(lemma: str) -> str:
    """ "have" -> "has", "love" -> "loves": propositions read as present-tense facts."""
    head, _, rest = lemma.partition(" ")
    if head in _IRREGULAR:
        head = _IRREGULAR[head]
    elif head.endswith(("s", "sh", "ch", "x", "z", "o")):
        head += "es"
    elif head.endswith("y") and head[-2:-1] not in tuple("aeiou"):
        head = head[:-1] + "ies"
    else:
        head += "s"
    return f"{head} {rest}" if rest else head


def _the(name: str) -> str:
    """Put "the" before a common noun, never before a proper name or an article.

    Some parses keep the article in the name (OpenToM's plot names "the trash can" as its
    destination); adding another gave "the the trash can" in tables and explanations.

    Examples
    --------
    >>> _the("box"), _the("Sally"), _the("the trash can"), _the("a room")
    ('the box', 'Sally', 'the trash can', 'a room')
    """
    if name[:1].isupper() or _ARTICLE.match(name) or name.split(" ", 1)[0] in _PHRASE_OPENERS:
        return name
    return f"the {name}"


_ARTICLE = re.compile(r"(?:the|a|an)\s", re.I)
# A complement kept verbatim ("to the drummers", "his crops", "for dry firewood") is a
# phrase, not a name: no article goes before it.
_PHRASE_OPENERS = frozenset(
    {"to", "for", "with", "from", "in", "on", "at", "by", "of", "about", "into", "onto", "over",
     "under", "out", "up", "down", "off", "away", "back", "past", "through", "around", "near",
     "his", "her", "their", "its", "my", "our", "your", "this", "that", "these", "those", "some",
     "any", "no", "every", "each", "all", "him", "them", "it", "me", "us", "you"}
)  # fmt: skip
