"""Turn a checked ``StoryParse`` into the typed events every parser emits.

The mapping follows the offline parser's conventions, so nothing downstream can tell which
parser ran (except ``Event.parser``):

- ``action`` items become enter / exit / stay / open / close events, and a move becomes
  ``move(actors=(mover,), obj, destination, proposition=Location(obj in destination))``;
- ``fact`` items become ``narrate`` or ``observe`` events carrying the claim;
- an ``utterance`` becomes ``tell(actors=(speaker,), hearers, private, proposition)``; an
  assertion tells its content, a question, promise or request tells the act itself
  (``Action/Event``: speaker ``ask`` / ``promise`` / ``request`` the content);
- a ``mental_state`` is narrated with its content type (Desire/Intention, Emotion,
  Epistemic, Trait/Value) and the holder as subject;
- a ``perception`` fact is narrated as ``Contents/Physical State`` with the actor as
  subject ("Sam does not see inside the bag");
- a ``default`` assumption is a ``label`` event: the holders take the container to hold
  the contents until they perceive otherwise.

Whether a mental state was stated or implied is kept as ``Event.stated`` (an implied one
labels Implicit). The parse's ``beliefs`` become the story's ``implied`` beliefs (holder
chain, typed proposition, the parser's wording, evidence sentences, how), which the graph
types and propagates (``beliefgraph.solvers.implied``).

Sentences are those of ``beliefgraph.text.segment``, numbered from 0 here as
``Sentence.index`` is (the parser shifts a reply counted from 1 before converting it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from beliefgraph.models import Entity, Event, ImpliedBelief, ParsedStory, Proposition, Sentence
from beliefgraph.text import segment

from .schema import (
    Action,
    BeliefOut,
    Claim,
    DefaultAssumption,
    Fact,
    Item,
    MentalState,
    Perception,
    StoryParse,
    Utterance,
    clean_name,
    name_key,
    resolve,
    thing_key,
)

__all__ = [
    "Names",
    "entities_of",
    "implied_beliefs",
    "item_events",
    "merge_story",
    "split_sentences",
    "to_story",
]

_STATE_TYPES = {
    "desire": "Desire/Intention",
    "intention": "Desire/Intention",
    "emotion": "Emotion",
    "knowledge": "Epistemic",
    "trait": "Trait/Value",
}
_LOCATION = frozenset({"in", "is in", "inside", "into", "located in", "at", "on", "be in"})
_CONTENTS = frozenset({"contains", "contain", "holds", "hold", "has", "have"})


def split_sentences(text: str) -> list[Sentence]:
    """Cut ``text`` into sentences with the one segmenter, keeping bAbI line numbers.

    Examples
    --------
    >>> [(s.index, s.text, s.line) for s in split_sentences("1 Ann left. Bob came.\\n2 Hi!")]
    [(0, 'Ann left.', 1), (1, 'Bob came.', 1), (2, 'Hi!', 2)]
    """
    return [Sentence(index=s.index - 1, text=s.text, line=s.number) for s in segment(text)]


class Names:
    """Canonical spellings: every variant of a name maps to its first spelling."""

    def __init__(self, actors: Iterable[str] = (), things: Iterable[str] = ()) -> None:
        self.actors: dict[str, str] = {}
        self.things: dict[str, str] = {}
        for a in actors:
            self.actors.setdefault(name_key(a), clean_name(a))
        for t in things:
            self.things.setdefault(thing_key(t), clean_name(t))

    def actor(self, name: str) -> str:
        return self.actors.setdefault(name_key(name), clean_name(name))

    def thing(self, name: str | None) -> str | None:
        if name is None:
            return None
        key = thing_key(name)
        known = resolve(key, self.things)
        if known is not None:
            return self.things[known]
        return self.things.setdefault(key, clean_name(name))

    def any(self, name: str) -> str:
        key = name_key(name)
        if key in self.actors:
            return self.actors[key]
        known = resolve(thing_key(name), self.things)
        return self.things[known] if known is not None else clean_name(name)


def claim_proposition(claim: Claim, names: Names) -> Proposition:
    """The proposition a claim states, with ``in`` / ``contains`` normalised."""
    relation = " ".join(claim.relation.lower().split())
    content_type = claim.content_type
    if relation in _LOCATION and claim.value:
        relation, content_type = "in", "Location"
    elif relation in _CONTENTS and claim.value:
        relation, content_type = "contains", "Contents/Physical State"
    value = names.any(claim.value) if claim.value else None
    return Proposition(
        content_type=content_type,
        subject=names.any(claim.subject),
        relation=relation,
        value=value,
        negated=claim.negated,
    )


# "the blue robot instead of the red race car": the desire is the first; the second is given
# up ("a change of mind"), and the parse's one item says both.
_INSTEAD = re.compile(r"^(?P<new>.+?)\s+(?:instead of|rather than|in place of)\s+(?P<old>.+)$")


def mental_propositions(item: MentalState, names: Names) -> list[Proposition]:
    """The propositions of a mental state: its own (``mental_proposition``), then, for a
    desire or intention worded "X instead of Y", the earlier one given up (negated)."""
    prop = mental_proposition(item, names)
    if item.state in ("desire", "intention") and item.value and item.about is None:
        m = _INSTEAD.match(" ".join(item.value.split()))
        if m is not None:
            given_up = prop.model_copy(update={"value": m.group("old"), "negated": True})
            return [prop.model_copy(update={"value": m.group("new")}), given_up]
    return [prop]


def mental_proposition(item: MentalState, names: Names) -> Proposition:
    """The proposition of a mental state: its holder as subject, typed by the state."""
    holder = names.actor(item.holder)
    relation = " ".join(item.relation.lower().split())
    if item.about is not None:
        about = claim_proposition(item.about, names)
        return Proposition(
            content_type="Epistemic", subject=holder, relation=relation,
            value=about.render(), holder=holder, about=about,
        )  # fmt: skip
    return Proposition(
        content_type=_STATE_TYPES[item.state], subject=holder, relation=relation,
        value=item.value,
    )  # fmt: skip


def item_proposition(item: Item, names: Names) -> Proposition | None:
    """What an item says, as one proposition (None for enter / exit / stay / open / close)."""
    if isinstance(item, Action):
        if item.kind == "move" and item.obj and item.destination:
            return Proposition(
                content_type="Location", subject=names.thing(item.obj) or item.obj,
                relation="in", value=names.thing(item.destination),
            )  # fmt: skip
        return None
    if isinstance(item, Fact):
        return claim_proposition(item.claim, names)
    if isinstance(item, Utterance):
        content = claim_proposition(item.content, names)
        if item.force == "assert":
            return content
        return Proposition(
            content_type="Action/Event", subject=names.actor(item.speaker),
            relation=item.force, value=content.render(),
        )  # fmt: skip
    if isinstance(item, MentalState):
        return mental_proposition(item, names)
    if isinstance(item, Perception):
        relation = f"{item.sense} inside" if item.inside else item.sense
        return Proposition(
            content_type="Contents/Physical State", subject=names.actor(item.actor),
            relation=relation, value=names.any(item.target), negated=not item.can_perceive,
        )  # fmt: skip
    return Proposition(
        content_type="Contents/Physical State", subject=names.thing(item.container) or "",
        relation="contains", value=names.thing(item.contents),
    )  # fmt: skip


def item_events(item: Item, names: Names) -> list[dict[str, Any]]:
    """The event fields (no id, no sentence) one item stands for."""
    prop = item_proposition(item, names)
    if isinstance(item, Action):
        actors = tuple(names.actor(a) for a in item.actors)
        fields: dict[str, Any] = {"kind": item.kind, "actors": actors}
        if item.kind == "move":
            fields.update(
                actors=actors[:1], obj=names.thing(item.obj), origin=names.thing(item.origin),
                destination=names.thing(item.destination), proposition=prop,
            )  # fmt: skip
        elif item.kind in ("open", "close"):
            fields["obj"] = names.thing(item.obj)
        else:
            fields["room"] = names.thing(item.room)
        return [fields]
    if isinstance(item, Fact):
        observers = tuple(names.actor(a) for a in item.observers)
        if item.kind == "observe":
            return [{"kind": "observe", "actors": observers, "proposition": prop}]
        return [{"kind": "narrate", "proposition": prop}]
    if isinstance(item, Utterance):
        return [
            {
                "kind": "tell",
                "actors": (names.actor(item.speaker),),
                "hearers": tuple(names.actor(a) for a in item.addressees),
                "private": item.private,
                "proposition": prop,
            }
        ]
    if isinstance(item, DefaultAssumption):
        holders = tuple(names.actor(a) for a in item.holders)
        fields = {
            "kind": "label", "actors": holders, "obj": names.thing(item.container),
            "proposition": prop,
        }  # fmt: skip
        if holders:
            fields["perceivers"] = holders
        return [fields]
    if isinstance(item, MentalState):
        return [{"kind": "narrate", "proposition": p, "stated": item.stated}
                for p in mental_propositions(item, names)]  # fmt: skip
    return [{"kind": "narrate", "proposition": prop}]  # perception fact


def implied_beliefs(beliefs: Iterable[BeliefOut], names: Names) -> tuple[ImpliedBelief, ...]:
    """The parse's beliefs (numbered from 0 already) as the story's implied beliefs.

    Examples
    --------
    >>> b = BeliefOut.model_validate({"holders": ["Bob"], "proposition": "Ann is cold.",
    ...     "claim": {"content_type": "Emotion", "subject": "Ann", "relation": "be",
    ...               "value": "cold"}, "evidence": [0], "how": "inferred"})
    >>> implied_beliefs([b], Names(["Ann", "Bob"]))[0].wording
    'Ann is cold'
    """
    out: list[ImpliedBelief] = []
    for b in beliefs:
        out.append(
            ImpliedBelief(
                holders=tuple(names.actor(h) for h in b.holders),
                proposition=claim_proposition(b.claim, names),
                wording=" ".join(b.proposition.split()).rstrip("."),
                evidence=tuple(sorted(set(b.evidence))),
                how=b.how,
            )
        )
    return tuple(out)


def _names_for(parse: StoryParse, actors: Iterable[str] = (), things: Iterable[str] = ()) -> Names:
    return Names([*actors, *parse.actors], [*things, *(e.name for e in parse.entities)])


def entities_of(parse: StoryParse, names: Names, events: Sequence[Event]) -> list[Entity]:
    kinds = {thing_key(e.name): e.kind for e in parse.entities}
    out: dict[str, Entity] = {}
    for e in parse.entities:
        name = names.thing(e.name) or e.name
        out.setdefault(thing_key(name), Entity(name=name, kind=e.kind))
    for ev in events:  # things used but not declared still get a kind
        for name, kind in (
            (ev.obj, "object"),
            (ev.origin, "container"),
            (ev.destination, "container"),
            (ev.room, "room"),
        ):
            if name and thing_key(name) not in out:
                out[thing_key(name)] = Entity(name=name, kind=kinds.get(thing_key(name), kind))
    return list(out.values())


def _first_mention(names: Iterable[str], text: str) -> list[str]:
    lowered = text.lower()
    unique = list(dict.fromkeys(names))
    return sorted(unique, key=lambda n: lowered.find(n.lower()) % (len(lowered) + 1))


def to_story(
    text: str,
    sentences: Sequence[Sentence],
    parse: StoryParse,
    *,
    parser: str = "llm",
) -> ParsedStory:
    """Build the ``ParsedStory`` of a whole text read by the LLM.

    Sentences that yield no event are kept with ``parsed=False``; with ``coverage`` in the
    validation context the model was already re-asked for them.
    """
    names = _names_for(parse)
    drafts: list[tuple[int, dict[str, Any]]] = []
    for item in sorted(parse.items, key=lambda i: i.sentence):
        for fields in item_events(item, names):
            drafts.append((item.sentence, fields))
    return _assemble(text, sentences, drafts, parse, names, parser=parser)


def merge_story(
    base: ParsedStory,
    parse: StoryParse,
    *,
    parser: str = "auto",
) -> ParsedStory:
    """Add the LLM's reading of ``base``'s unparsed sentences to ``base``'s own events.

    Events are renumbered in sentence order; each keeps the ``parser`` that produced it.
    """
    names = _names_for(parse, base.actors, (e.name for e in base.entities))
    drafts: list[tuple[int, dict[str, Any]]] = []
    for item in sorted(parse.items, key=lambda i: i.sentence):
        for fields in item_events(item, names):
            drafts.append((item.sentence, fields))
    return _assemble(base.text, base.sentences, drafts, parse, names, parser=parser, base=base)


def _assemble(
    text: str,
    sentences: Sequence[Sentence],
    drafts: list[tuple[int, dict[str, Any]]],
    parse: StoryParse,
    names: Names,
    *,
    parser: str,
    base: ParsedStory | None = None,
) -> ParsedStory:
    by_sentence: dict[int, list[Event]] = {}
    read = {index for index, _ in drafts}
    if base is not None:
        unparsed = {s.index for s in base.sentences if not s.parsed}
        for e in base.events:  # an unread sentence's placeholder fact gives way to the LLM's
            if not (e.sentence_index in read and e.sentence_index in unparsed):
                by_sentence.setdefault(e.sentence_index, []).append(e)
    for index, fields in drafts:
        s = sentences[index]
        event = Event(
            id=1, sentence=s.text, sentence_index=index, line=s.line, parser="llm", **fields
        )
        by_sentence.setdefault(index, []).append(event)
    events: list[Event] = []
    new_sentences: list[Sentence] = []
    for s in sentences:
        ids: list[int] = []
        for e in by_sentence.get(s.index, []):
            events.append(e.model_copy(update={"id": len(events) + 1}))
            ids.append(len(events))
        parsed = (base is not None and s.parsed) or s.index in read
        new_sentences.append(s.model_copy(update={"parsed": parsed, "events": tuple(ids)}))
    used = [a for e in events for a in (*e.actors, *e.hearers)]
    declared = [names.actor(a) for a in parse.actors]
    prior = list(base.actors) if base is not None else []
    actors = prior + [a for a in _first_mention([*declared, *used], text) if a not in prior]
    entities = entities_of(parse, names, events)
    if base is not None:
        known = {thing_key(e.name) for e in base.entities}
        entities = list(base.entities) + [e for e in entities if thing_key(e.name) not in known]
    implied = implied_beliefs(parse.beliefs, names)
    if base is not None:
        implied = (*base.implied, *implied)
    return ParsedStory(
        text=text,
        sentences=tuple(new_sentences),
        events=tuple(events),
        actors=tuple(dict.fromkeys(actors)),
        entities=tuple(entities),
        implied=implied,
        parser=parser,
    )
