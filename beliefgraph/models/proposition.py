"""What a belief is about."""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

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
    preposition: SkipJsonSchema[str | None] = Field(default=None, exclude=True)
    """For a location: how the thing is placed when it is not "in" ("on", "under",
    "behind"). Only the wording: the place is ``value`` either way. Left out of the JSON
    schema and of dumps, so that every schema embedding a proposition (the LLM clients'
    cache keys) and every saved graph stays as it was; a graph read back from JSON words
    its locations "in"."""
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
    def key(self) -> tuple[str, str, str] | None:
        """What a state is about: (thing, relation, attribute), or None.

        A thing has one state of each attribute at a time, so a later state with the same
        key replaces the earlier one for whoever perceives it (``solvers.perception``): "the
        valve is closed" then "the valve is open", "the label states X" then "the label
        states Y". "The valve is not closed" is about the same attribute (same key), but
        states no value to replace another with. The key is set for a ``Contents/Physical
        State`` or ``Identity/Relation`` proposition whose relation is a copula ("is",
        "becomes", "looks", "is work of") or a verb of what a thing displays ("states",
        "reads", "shows"), in any inflection, as parses of either kind spell it. The attribute is
        the scale a word of the value names (temperature, open/closed, colour, condition,
        ...), so "the tea is hot" and "the tea is sweet" do not compete; a value on no
        known scale has the attribute "" (and replaces no other state of it: "heavy" says
        nothing about "big"; only a label's text replaces another). Whether the subject is a
        thing, not an actor, is for the caller to say (an actor's "is a fisherman" and "is
        tired" both hold).

        Examples
        --------
        >>> def state(rel, value=None, **kw):
        ...     return Proposition(content_type="Contents/Physical State", subject="valve",
        ...                        relation=rel, value=value, **kw)
        >>> state("be", "closed").key == state("is", "open").key
        True
        >>> state("is closed").key, state("be", "hot").key == state("be", "sweet").key
        (('valve', 'be', 'open'), False)
        >>> state("states", "the tea is hot").key, state("be", "closed", negated=True).key
        (('valve', 'say', ''), ('valve', 'be', 'open'))
        """
        if self.content_type not in _STATE_TYPES or self.about is not None:
            return None
        return _state_key(self.subject, self.relation, self.value)

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
            where = self.preposition or "in"
            return f"{subject} is{neg} {where} {_the(self.value or '?')}"
        if self.relation == "contains":
            neg = " does not contain" if self.negated else " contains"
            return f"{subject}{neg} {_the(self.value or '?')}"
        relation = _lemma(self.relation)
        verb = _third_person(relation) if not self.negated else _negated(relation)
        # "is hot", "becomes hot", not "is the hot": a copula's complement is a property.
        copula = _STATE_VERBS.get(relation.split(" ")[0]) == "be"
        value = self.value if copula else _the(self.value or "")
        tail = f" {value}" if self.value else ""
        if self.target:
            tail += f" to {_the(self.target)}"
        if self.about is not None:
            tail += f" that {self.about.render()}"
        return f"{subject} {verb}{tail}"


def _words(text: str) -> list[str]:
    return text.split()


_STATE_TYPES = frozenset({"Contents/Physical State", "Identity/Relation"})
# A copula, or a verb of what a thing shows, in the inflections parses spell it with.
_STATE_VERBS = {
    **dict.fromkeys(
        _words(
            "be is are was were been being become becomes became remain remains remained stay "
            "stays stayed seem seems seemed appear appears appeared look looks looked get gets got "
            "turn turns turned grow grows grew feel feels felt smell smells smelled taste tastes "
            "tasted sound sounds sounded"
        ),
        "be",
    ),
    **dict.fromkeys(
        _words(
            "say says said state states stated read reads show shows showed shown display "
            "displays displayed indicate indicates indicated"
        ),
        "say",
    ),
}
# The attribute a state word describes: two states of one thing compete only on one scale.
_SCALES = {
    word: scale
    for scale, words in {
        "temperature": "hot warm cold cool chilly freezing frozen boiling lukewarm icy "
        "heated melted",
        "open": "open opened closed shut locked unlocked ajar sealed",
        "full": "full empty filled emptied",
        "wet": "wet dry damp soaked moist soggy flooded dried",
        "clean": "clean dirty filthy muddy dusty spotless stained",
        "fresh": "fresh stale rotten spoiled ripe unripe moldy mouldy expired rancid wilted "
        "overripe",
        "condition": "broken intact damaged fixed repaired working functional torn ruined "
        "cracked shattered destroyed undamaged condition punctured flat",
        "power": "lit unlit running charged",
        "colour": "red orange yellow green blue purple pink brown black white grey gray",
        "taste": "sweet salty bitter spicy bland sour",
        "alive": "alive dead healthy sick ill",
    }.items()
    for word in words.split()
}


# Stories state the same few states again and again (every belief listing asks): each
# distinct statement is keyed once.
@lru_cache(maxsize=1 << 14)
def _state_key(subject: str, relation: str, value: str | None) -> tuple[str, str, str] | None:
    if relation in _FUNCTIONAL_RELATIONS:
        return None
    head, _, rest = relation.lower().partition(" ")
    kind = _STATE_VERBS.get(head)
    state = value or rest  # "is closed": the state is in the relation
    if kind is None or not state:
        return None
    if value and rest:  # "is work of": part of what the value is
        kind = f"{kind} {rest}"
    # What a label says is one thing, whatever it is about; a state is one per scale.
    words = re.findall(r"[a-z]+", state.lower()) if kind.startswith("be") else ()
    scale = next((_SCALES[w] for w in words if w in _SCALES), "")
    return (_ARTICLE.sub("", subject.lower(), count=1), kind, scale)


_IRREGULAR = {"have": "has", "be": "is", "do": "does", "go": "goes"}


def _lemma(relation: str) -> str:
    """ "states" -> "state", "is work of" -> "be work of": a parse may inflect the verb of a
    state, and rendering inflects it again ("stateses", "does not states").

    Examples
    --------
    >>> _lemma("states"), _lemma("is work of"), _lemma("love"), _lemma("dress")
    ('state', 'be work of', 'love', 'dress')
    """
    head, sep, rest = relation.partition(" ")
    if head in ("is", "are", "was", "were"):
        head = "be"
    elif head.endswith("s") and head in _STATE_VERBS and head[:-1] in _STATE_VERBS:
        head = head[:-1]
    return head + sep + rest


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
    """Put "the" before a common noun phrase, never before a proper name, an article, or a
    complement kept verbatim that is no noun phrase.

    Some parses keep the article in the name (OpenToM's plot names "the trash can" as its
    destination); adding another gave "the the trash can" in tables and explanations. A
    complement kept as written may open with an adverb, a pronoun, a clause or a verb
    phrase ("flies overhead", "realizes there was a mix-up", "starts making the salsa"):
    "the" there gave "flies the overhead".

    Examples
    --------
    >>> _the("box"), _the("Sally"), _the("the trash can"), _the("a room")
    ('the box', 'Sally', 'the trash can', 'a room')
    >>> _the("overhead"), _the("there was a mix-up"), _the("making the salsa")
    ('overhead', 'there was a mix-up', 'making the salsa')
    >>> _the("fishing net"), _the("damaged crop"), _the("painting")
    ('the fishing net', 'the damaged crop', 'the painting')
    """
    if name[:1].isupper() or _ARTICLE.match(name) or not _noun_phrase(name):
        return name
    return f"the {name}"


def _noun_phrase(text: str) -> bool:
    """Whether a name or verbatim complement reads as a noun phrase (so takes "the").

    Without a tagger at this layer, by its first words: no function word, quote or number
    opens it, no "-ly" adverb, and no verb form or adjective followed by a function word
    ("making the salsa", "decided to", "unaware of" open phrases; "fishing net" and
    "damaged crop" are nouns).
    """
    words = text.lower().split()
    if not words or not words[0][:1].isalpha():
        return False  # a quotation, a number
    first = words[0].strip(",.;:!?")
    if first in _PHRASE_OPENERS or first in _NOT_NOUN_OPENERS or first.endswith("n't"):
        return False
    if first.endswith("ly") and first not in _LY_NOUNS:
        return False
    second = words[1].strip(",.;:!?") if len(words) > 1 else ""
    if second and second in _FUNCTION_AFTER and len(first) > 3:
        return False
    # "leaving Owen alone", "sitting innocently", "playing outside": a verb's "-ing"
    after = text.split()[1] if len(words) > 1 else ""
    return not (
        first.endswith("ing")
        and second
        and (after[:1].isupper() or second.endswith("ly") or second in _NOT_NOUN_OPENERS)
    )


_ARTICLE = re.compile(r"(?:the|a|an)\s", re.I)
# Words that open no noun phrase: clause openers, pronouns, auxiliaries, quantifiers,
# adverbs of place, time and degree.
_NOT_NOUN_OPENERS = frozenset(
    {"and", "but", "or", "nor", "so", "as", "while", "because", "if", "then", "than", "when",
     "where", "what", "who", "whom", "whose", "which", "why", "how", "whether", "though",
     "although", "unless", "until", "upon", "once", "there", "here", "not", "never",
     "always", "often", "sometimes", "also", "too", "very", "only", "even", "just", "still",
     "again", "already", "almost", "soon", "now", "later", "yet", "ever", "rather", "quite",
     "i", "he", "she", "they", "we", "themselves", "himself", "herself", "itself", "myself",
     "ourselves", "yourself", "yourselves", "everyone", "everybody", "someone", "somebody",
     "anyone", "anybody", "nobody", "something", "anything", "nothing", "everything",
     "is", "are", "was", "were", "be", "been", "being", "am", "can", "could", "will",
     "would", "shall", "should", "may", "might", "must", "do", "does", "did", "has", "have",
     "had", "most", "more", "many", "much", "both", "either", "neither", "several", "few",
     "enough", "another", "such", "overhead", "nearby", "inside", "outside", "behind",
     "across", "upstairs", "downstairs", "home", "together", "ahead", "along", "apart",
     "aside", "abroad", "indoors", "outdoors", "underneath", "beneath", "toward", "towards",
     "without", "within", "throughout", "during", "before", "after", "since", "like",
     "unaware", "unable", "aware", "able", "sure", "unsure", "offshore", "backstage",
     "onstage", "downstream", "upstream", "uphill", "downhill", "everywhere", "somewhere",
     "nowhere", "anywhere"}
)  # fmt: skip
# Nouns that end in "-ly" ("the family"), unlike the adverbs a complement may open with.
_LY_NOUNS = frozenset(
    {"family", "lily", "jelly", "belly", "rally", "ally", "bully", "fly", "butterfly",
     "dragonfly", "firefly", "supply", "assembly", "holly", "anomaly", "monopoly", "folly",
     "gully", "reply", "italy", "melancholy"}
)  # fmt: skip
# A complement kept verbatim ("to the drummers", "his crops", "for dry firewood") is a
# phrase, not a name: no article goes before it.
_PHRASE_OPENERS = frozenset(
    {"to", "for", "with", "from", "in", "on", "at", "by", "of", "about", "into", "onto", "over",
     "under", "out", "up", "down", "off", "away", "back", "past", "through", "around", "near",
     "his", "her", "their", "its", "my", "our", "your", "this", "that", "these", "those", "some",
     "any", "no", "every", "each", "all", "him", "them", "it", "me", "us", "you"}
)  # fmt: skip
# After a first word, these make it a verb phrase or a predicate ("making the salsa",
# "decided to take", "unaware of this"), not a noun phrase.
_FUNCTION_AFTER = _PHRASE_OPENERS | frozenset(
    {"the", "a", "an", "to", "he", "she", "they", "we", "i", "among", "loudly", "there",
     "that", "what", "how", "if", "whether"}
)  # fmt: skip
