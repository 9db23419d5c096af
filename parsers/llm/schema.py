"""What the LLM returns: a bounded pydantic schema, checked against the source text.

The model fills one ``StoryParse``: the actors and things it found, then one item per thing
that happens, in story order, each tied to the numbered sentence it was read from. Items
come in six types, told apart by ``type``:

- ``action``: the offline parser's physical event kinds (enter, exit, stay, move, open,
  close);
- ``fact``: a fact the narrator states (``narrate``) or actors see (``observe``);
- ``utterance``: a speaker, the addressees, and whether the content is asserted, asked,
  promised or requested;
- ``mental_state``: a desire, intention, emotion, knowledge or trait, with its holder, and
  whether the text states it or only implies it;
- ``perception``: what an actor can or cannot perceive ("X cannot see inside the bag");
- ``default``: what an actor assumes a container holds ("a KFC bag contains KFC food").

Beside the items, ``beliefs`` lists what the story states or implies someone believes (a
hint's intent, a speaker's feeling, what a listener infers, what one actor thinks another
thinks): the holder chain, a minimal proposition, the evidence sentences and how the holder
came by it (``BeliefOut``). ``convert`` makes them the graph's implied beliefs.

Sentence numbers are those the model was shown: ``numbered`` counts from 1
(``beliefgraph.text.FIRST``), and the validation context's ``first`` says so; ``shifted``
gives the parse counted from 0, as ``Sentence.index`` is.

Every list and string has a ``max_length``, so a constrained decoder always terminates.
Validators read the story through the validation context (``StoryParse.check`` lists the
keys) and reject actors or things the text never mentions, moves of things not yet
introduced, and sentence numbers out of range; instructor sends the error text back to
the model. ``convert`` turns a valid parse into the events the offline parser emits.

Limits: names are matched to the text by their words (case-insensitive, a plural ``s``
ignored), not by coreference; "she" never counts as a mention of an actor.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    model_validator,
)

from beliefgraph.models import ContentType

__all__ = [
    "HOW",
    "MAX_ITEMS",
    "Action",
    "BeliefOut",
    "Claim",
    "DefaultAssumption",
    "EntityOut",
    "Fact",
    "Item",
    "MentalState",
    "Perception",
    "StoryParse",
    "Utterance",
    "thing_key",
]

MAX_ITEMS = 40
"""The most items one completion may hold."""

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]
Word = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=24)]
Phrase = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
SentenceNo = Annotated[int, Field(ge=0, le=999)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=160)]
How = Literal["inferred", "implied", "told", "saw", "remembers", "imagined"]
HOW: tuple[str, ...] = ("inferred", "implied", "told", "saw", "remembers", "imagined")
"""How a holder comes by a belief (``BeliefOut.how``)."""
Names = Annotated[list[Name], Field(max_length=8)]


class _Out(BaseModel):
    """Base of the output models: unknown keys are errors, so the model is re-asked."""

    model_config = ConfigDict(extra="forbid")


class Claim(_Out):
    """A typed atomic statement: ``subject relation value`` ("ball in basket")."""

    content_type: ContentType = "Action/Event"
    """Location for "X is in Y", Contents/Physical State for "Y contains X", else the type."""
    subject: Name
    """The thing or person the statement is about."""
    relation: Word
    """``in`` (location), ``contains`` (contents), or a verb lemma ("love", "be")."""
    value: Phrase | None = None
    """The container, the contents, or the complement; null when there is none."""
    negated: bool = False
    """True for "the ball is not in the box"."""


class Action(_Out):
    """A physical event of the offline parser's kinds."""

    type: Literal["action"]
    sentence: SentenceNo
    """The number of the sentence it was read from."""
    kind: Literal["enter", "exit", "stay", "move", "open", "close"]
    """enter/exit/stay a room; move an object to a container; open/close a container."""
    actors: Names
    """Who acts: the mover, or everyone who enters or leaves together (required, so a
    constrained decoder always writes it)."""
    obj: Name | None = None
    """The object moved, or the container opened or closed."""
    origin: Name | None = None
    """The container an object is taken from, if the sentence says."""
    destination: Name | None = None
    """The container an object is put into."""
    room: Name | None = None
    """The room entered, left or stayed in, if the sentence says."""

    @model_validator(mode="after")
    def _complete(self) -> Action:
        if self.kind in ("enter", "exit", "stay", "move") and not self.actors:
            raise ValueError(f"a {self.kind} needs its actors")
        if self.kind == "move" and (self.obj is None or self.destination is None):
            raise ValueError("a move needs obj (what is moved) and destination (where to)")
        if self.kind in ("open", "close") and self.obj is None:
            raise ValueError(f"{self.kind} needs obj: the container")
        return self


class Fact(_Out):
    """A fact the narrator states (``narrate``) or that actors see (``observe``)."""

    type: Literal["fact"]
    sentence: SentenceNo
    kind: Literal["narrate", "observe"] = "narrate"
    observers: Names = []
    """For observe: who sees it."""
    claim: Claim


class Utterance(_Out):
    """Something said: by whom, to whom, and what it does with its content."""

    type: Literal["utterance"]
    sentence: SentenceNo
    speaker: Name
    addressees: Names = []
    """Who it is said to; empty means everyone present."""
    force: Literal["assert", "ask", "promise", "request"] = "assert"
    """assert: the speaker claims the content is true; ask/promise/request otherwise."""
    private: bool = False
    """True when only the addressees hear it (a whisper, a private message)."""
    content: Claim


class MentalState(_Out):
    """A desire, intention, emotion, knowledge or trait, and who holds it."""

    type: Literal["mental_state"]
    sentence: SentenceNo
    holder: Name
    state: Literal["desire", "intention", "emotion", "knowledge", "trait"]
    stated: bool = True
    """True when the text states it, False when it is only implied."""
    relation: Word
    """A verb lemma: want, plan, feel, know, be."""
    value: Phrase | None = None
    """What is wanted or felt, or the trait ("the apple", "sad", "honest")."""
    about: Claim | None = None
    """For knowledge or belief: the fact known or believed."""


class Perception(_Out):
    """What an actor can or cannot perceive: "Sam cannot see inside the bag"."""

    type: Literal["perception"]
    sentence: SentenceNo
    actor: Name
    can_perceive: bool
    sense: Literal["see", "hear"] = "see"
    target: Name
    """The container, room, object or person perceived."""
    inside: bool = False
    """True for "see inside" a container."""


class DefaultAssumption(_Out):
    """What someone assumes a container holds, from a label or its look."""

    type: Literal["default"]
    sentence: SentenceNo
    holders: Names = []
    """Who holds the assumption; empty means everyone who sees the container."""
    container: Name
    contents: Name


class BeliefOut(_Out):
    """A belief the story states or implies: who holds it, what, on which evidence, how."""

    holders: Annotated[list[Name], Field(min_length=1, max_length=3)]
    """The holder chain, outermost first: ["A"] is "A believes p", ["A", "B"] is "A
    believes that B believes p"."""
    proposition: Text
    """p in minimal words, present tense, names instead of pronouns ("Li needs eggs")."""
    claim: Claim
    """p typed: its content type, subject, relation and value."""
    evidence: Annotated[list[SentenceNo], Field(min_length=1, max_length=8)]
    """The numbers of the sentences the holder has it from (what they saw, heard, did)."""
    how: How
    """inferred: worked out from what the holder perceived (a hint's intent, another's
    thoughts); implied: the holder's own unstated intention, feeling or expectation the
    story implies; told, saw, remembers; imagined: supposed, pretended or hoped."""

    @property
    def sentence(self) -> int:
        """The sentence from which the belief is held: its last evidence."""
        return max(self.evidence)


Item = Annotated[
    Action | Fact | Utterance | MentalState | Perception | DefaultAssumption,
    Field(discriminator="type"),
]


class EntityOut(_Out):
    """A thing the story names."""

    name: Name
    """As the story spells it, without article: "basket", "green crate"."""
    kind: Literal["object", "container", "room"]


class StoryParse(_Out):
    """Everything read from the numbered sentences, in story order."""

    runs_checks: ClassVar[bool] = True
    """``check`` runs the context's ``checks`` itself (the client adds no second pass)."""

    actors: Annotated[list[Name], Field(max_length=16)] = []
    """Every person, by name, in order of first mention."""
    entities: Annotated[list[EntityOut], Field(max_length=32)] = []
    """Every object, container and room."""
    items: Annotated[list[Item], Field(max_length=MAX_ITEMS)] = []
    """What happens, one item per event or state, in story order."""
    beliefs: Annotated[list[BeliefOut], Field(max_length=MAX_ITEMS)] = []
    """What the story states or implies each actor believes, beyond what they perceive."""

    def shifted(self, first: int) -> StoryParse:
        """The parse with sentence ``first`` renumbered 0 (the reply counted from ``first``).

        Examples
        --------
        >>> p = StoryParse.model_validate({"actors": ["Ann"], "items": [{"type": "action",
        ...     "sentence": 1, "kind": "exit", "actors": ["Ann"]}]})
        >>> p.shifted(1).items[0].sentence
        0
        """
        if not first:
            return self
        items = [i.model_copy(update={"sentence": i.sentence - first}) for i in self.items]
        beliefs = [
            b.model_copy(update={"evidence": [n - first for n in b.evidence]}) for b in self.beliefs
        ]
        return self.model_copy(update={"items": items, "beliefs": beliefs})

    @model_validator(mode="after")
    def check(self, info: ValidationInfo) -> StoryParse:
        """Check the parse against the source.

        The validation context holds ``sentences`` (the texts), ``first`` (the number the
        model saw on ``sentences[0]``; default 0), ``targets`` (the indices to read, from 0;
        default all), ``actors`` and ``entities`` known from elsewhere
        (the offline parser, a dialogue's speakers), ``speakers`` (sentence number to the
        speaker a dialogue turn has), ``coverage`` (every target must yield an item) and
        ``checks`` (callables taking the parse and returning an error text or None).
        Without a context nothing is checked.
        """
        ctx: dict[str, Any] | None = info.context
        if not ctx or "sentences" not in ctx:
            return self
        problems = _problems(self, ctx)
        if problems:
            shown = problems[:8]
            more = len(problems) - len(shown)
            tail = f"\n(and {more} more)" if more > 0 else ""
            raise ValueError("; ".join(shown) + tail)
        return self


# -- checking against the source ------------------------------------------------------------

_ARTICLES = re.compile(r"^(?:the|a|an|his|her|their|its|my|your|our|some)\s+", re.I)
_WORD = re.compile(r"[a-z0-9]+")
_LAST = re.compile(r"([A-Za-z0-9]+)[^A-Za-z0-9]*$")


def clean_name(name: str) -> str:
    """A name without article or extra spaces: "the  green_crate" -> "green_crate"."""
    return _ARTICLES.sub("", " ".join(name.split()))


def name_key(name: str) -> str:
    """The comparison key of a name: lower case, no article, ``_`` as space, no plural s.

    A capitalised last word is a proper name, not a plural: it keeps its letters.

    Examples
    --------
    >>> name_key("the green_crates"), name_key("Miles"), name_key("James Potts")
    ('green crate', 'miles', 'james potts')
    """
    cleaned = clean_name(name).replace("_", " ")
    words = _WORD.findall(cleaned.lower())
    if words and len(words[-1]) > 3 and words[-1].endswith("s"):
        last = _LAST.search(cleaned)
        if not (last and last[1][0].isupper() and last[1].lower() == words[-1]):
            words[-1] = words[-1][:-1]
    return " ".join(words)


def thing_key(name: str) -> str:
    """The comparison key of a thing's name: ``name_key`` of its lower case.

    Only a person's name is proper: a thing written "Apples" at the start of a model's list
    and "apples" in an action is one thing, so case never decides a thing's plural.

    Examples
    --------
    >>> thing_key("Apples") == thing_key("apples") == "apple"
    True
    >>> name_key("Apples")
    'apples'
    """
    return name_key(name.lower())


def short_names(people: Iterable[str]) -> dict[str, str]:
    """Key -> full name, for the short forms of each participant's name that no other
    participant's name shares: its first word, its last word, and the first word's leading
    three letters or more ("Ben" for "Benjamin Jackson"). A model that calls "Liam Johnson"
    "Liam", as a conversation's own lines do, still names him.

    Examples
    --------
    >>> sorted(short_names(["Liam Johnson", "Ann"]).items())
    [('johnson', 'Liam Johnson'), ('lia', 'Liam Johnson'), ('liam', 'Liam Johnson')]
    >>> short_names(["Ann Lee", "Ann Roe"])
    {'lee': 'Ann Lee', 'roe': 'Ann Roe'}
    >>> short_names(["Miles Hawkins", "Esme Hart"])["miles"]  # the key keeps its final s
    'Miles Hawkins'
    """
    people = list(people)
    full = {name_key(p) for p in people}
    seen: dict[str, set[str]] = {}
    for p in people:
        words = _WORD.findall(clean_name(p).lower().replace("_", " "))
        if len(words) < 2:
            continue
        first, last = words[0], words[-1]
        forms = {first, last, *(first[:n] for n in range(3, len(first)))}
        for form in forms:
            # Both spellings of the key: the form itself (the model's "Miles" keys as
            # "miles") and the lower-case form keyed as ``name_key`` keys it ("mile").
            for key in {name_key(form), form}:
                seen.setdefault(key, set()).add(p)
    return {k: next(iter(ps)) for k, ps in sorted(seen.items())
            if len(ps) == 1 and k not in full}  # fmt: skip


def resolve(key: str, known: Iterable[str]) -> str | None:
    """The known key ``key`` names: itself, or the one known key with the same head noun
    whose words include its words or are included in them ("bag" for "kfc bag").

    Examples
    --------
    >>> resolve("bag", ["kfc bag", "box"]), resolve("bag", ["red bag", "blue bag"])
    ('kfc bag', None)
    """
    known = set(known)
    if key in known:
        return key
    words = set(key.split())
    head = key.rsplit(" ", 1)[-1]
    found = [
        k for k in known
        if k.rsplit(" ", 1)[-1] == head and (words <= set(k.split()) or set(k.split()) <= words)
    ]  # fmt: skip
    return found[0] if len(found) == 1 else None


def _words(text: str) -> set[str]:
    out: set[str] = set()
    for w in _WORD.findall(text.lower().replace("_", " ")):
        out.add(w)
        if len(w) > 3 and w.endswith("s"):
            out.add(w[:-1])
    return out


def mentioned(name: str, text: str) -> bool:
    """Whether every word of ``name`` occurs in ``text`` (plural s ignored).

    Examples
    --------
    >>> mentioned("the green_crate", "Anne puts it in the green crates.")
    True
    >>> mentioned("cup", "Anne puts it in the box.")
    False
    """
    key = name_key(name)
    return bool(key) and set(key.split()) <= _words(text)


def _problems(parse: StoryParse, ctx: dict[str, Any]) -> list[str]:
    sentences: list[str] = list(ctx["sentences"])
    first = int(ctx.get("first", 0))
    # Numbers as the model saw them: every message below speaks its numbering.
    targets = {t + first for t in ctx.get("targets") or range(len(sentences))}
    text = " ".join(sentences)
    known_actors = {name_key(a) for a in ctx.get("actors", ())}
    known_things = {thing_key(e) for e in ctx.get("entities", ())}
    speakers: dict[int, str] = {int(k): v for k, v in (ctx.get("speakers") or {}).items()}
    aliases = short_names(ctx.get("actors", ())) if speakers else {}
    problems: list[str] = []

    actors = set(known_actors)
    for a in parse.actors:
        if name_key(a) not in known_actors and not mentioned(a, text):
            problems.append(f"actor {a!r} does not occur in the text; list only named people")
        actors.add(name_key(a))
    things = set(known_things)
    for e in parse.entities:
        if thing_key(e.name) not in known_things and not mentioned(e.name, text):
            problems.append(f"entity {e.name!r} does not occur in the text")
        things.add(thing_key(e.name))

    def actor(label: str, name: str) -> None:
        if name_key(name) not in actors:
            problems.append(
                f"{label}: {name!r} is not in actors {sorted(parse.actors) or '[]'}; "
                "add it there if the text names it"
            )

    def thing(label: str, name: str | None, *, people_too: bool = False) -> None:
        if name is None:
            return
        key = thing_key(name)
        if resolve(key, things) is None and not (people_too and name_key(name) in actors):
            names = sorted(e.name for e in parse.entities)
            problems.append(f"{label}: {name!r} is not in entities {names}; add it there")

    covered: set[int] = set()
    for n, item in enumerate(parse.items):
        s = item.sentence
        where = f"item {n} ({item.type}, sentence {s})"
        if s not in targets:
            allowed = sorted(targets)
            problems.append(f"{where}: sentence {s} is not one to read; use one of {allowed}")
            continue
        covered.add(s)
        if isinstance(item, Action):
            for a in item.actors:
                actor(where, a)
            for label, value in (
                ("obj", item.obj),
                ("origin", item.origin),
                ("destination", item.destination),
                ("room", item.room),
            ):
                thing(f"{where} {label}", value)
            if item.kind == "move" and item.obj is not None:
                before = " ".join(sentences[: s - first + 1])
                if not mentioned(item.obj, before) and not resolve(
                    thing_key(item.obj), known_things
                ):
                    problems.append(
                        f"{where}: moves {item.obj!r}, which no sentence up to {s} introduces"
                    )
        elif isinstance(item, Fact):
            for a in item.observers:
                actor(where, a)
        elif isinstance(item, Utterance):
            actor(where, item.speaker)
            for a in item.addressees:
                actor(where, a)
            turn = speakers.get(s - first)
            said = name_key(item.speaker)
            if said in aliases:  # "Liam" for the turn of "Liam Johnson"
                said = name_key(aliases[said])
            if turn is not None and said != name_key(turn):
                problems.append(f"{where}: speaker is {item.speaker!r} but the turn is {turn!r}")
        elif isinstance(item, MentalState):
            actor(where, item.holder)
        elif isinstance(item, Perception):
            actor(where, item.actor)
            thing(f"{where} target", item.target, people_too=True)
        elif isinstance(item, DefaultAssumption):
            for a in item.holders:
                actor(where, a)
            thing(f"{where} container", item.container)
    shown = range(first, first + len(sentences))
    for n, belief in enumerate(parse.beliefs):
        where = f"belief {n} ({' > '.join(belief.holders)}: {belief.proposition!r})"
        for h in belief.holders:
            actor(where, h)
        if any(a == b for a, b in zip(belief.holders, belief.holders[1:], strict=False)):
            problems.append(f"{where}: a holder chain never names one actor twice in a row")
        outside = [e for e in belief.evidence if e not in shown]
        if outside:
            problems.append(
                f"{where}: evidence {outside} is not a sentence number "
                f"({first}..{first + len(sentences) - 1})"
            )
    for check in ctx.get("checks", ()):
        if message := check(parse):
            problems.append(message)
    if ctx.get("coverage"):
        missing = sorted(targets - covered)
        if missing:
            problems.append(
                f"sentences {missing} yield no item; give each at least one "
                "(a narrate fact for a plain statement)"
            )
    return problems
