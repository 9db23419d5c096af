"""Story assembly: turn per-sentence templates into numbered, resolved events.

Templates do not depend on the story, so they are cached by sentence text; everything that
does depend on it happens here, in one pass in story order:

* pronouns: "it" (and "them" as an object) is the last object, "they" the last group of
  actors named together, and "he"/"she"/"him"/"her" the last actor named alone as a
  subject if the pronoun fits that actor's gender, else the most recent actor it fits.
  Genders come from the text ("his mother", "her brother Leo") or from the first pronoun
  an actor is called by; an object pronoun is never its own clause's subject ("Jack told
  her": not Jack). Common nouns that name people ("his mother") are actors;
* canonical names: mentions whose head nouns share a lemma are one entity, spelled as the
  story's first singular mention ("backpacks" ... "the backpack" -> "backpack");
* "X finds Y in Z": Z is a room (``observe`` with ``room``) when the story already knows
  it as a room, when Y is a known container, or when X is not yet in any room; otherwise
  Z is a container (``observe`` of "Y in Z");
* "X finds Y" after someone opened a container: Y is that container's contents;
* entity kinds: a room if anything enters, leaves, stays in or is found in it; else a
  container if anything is put in, taken from, seen, labelled, opened or closed; else an
  object; things only owned ("Sally has a basket") are containers.

A sentence whose pronoun has nothing to refer to is unparsed, like one no frame reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from beliefgraph.errors import UnparsedSentenceError
from beliefgraph.models import Entity, EntityKind, Event, ParsedStory, Proposition, Sentence

from .templates import Mention, PropTemplate, Template, Who

__all__ = ["Item", "assemble"]

Item = tuple[str, int | None, tuple[Template, ...] | None]
"""One clause: its verbatim text, its source line number, and its templates (None: unread)."""

# A role decides an entity's kind; lower ranks win ("owned" is the weakest evidence).
_KIND_RANK = {"room": 0, "container": 1, "object": 2, "owned": 3}
_ENTITY_KIND: dict[str, EntityKind] = {
    "room": "room",
    "container": "container",
    "object": "object",
    "owned": "container",
}


_VALUE_ROLES = {"in": "container", "contains": "object", "see inside": "container", "have": "owned"}
# Things an act is done to ("took the socks", "folded her scarf") are objects "it" and
# "them" may refer to next; an animal seen or a thing lost is not part of the story's stage.
_NOT_OBJECTS = frozenset({"see", "lose"})


class _Unresolved(Exception):
    """A pronoun with nothing to refer to."""


def assemble(
    text: str,
    items: Iterable[Item],
    *,
    strict: bool,
    sources: Sequence[tuple[int | None, str]] = (),
    sentence_of: Sequence[int] = (),
) -> ParsedStory:
    """Resolve and number the events of one story.

    Parameters
    ----------
    text : str
        The story as given.
    items : iterable of Item
        The story's clauses in order.
    strict : bool
        Raise on unread clauses instead of keeping them as uninterpreted facts.
    sources : sequence of (int or None, str), optional
        Per clause, the physical line it starts on and why it is unread ("" when no rule
        reads it); used to name unread clauses of unnumbered text in the error.
    sentence_of : sequence of int, optional
        Per clause, the 0-based index of the segmenter sentence it belongs to: the
        ``index`` of its ``Sentence`` and the ``sentence_index`` of its events, so clauses
        of one sentence share a number. Defaults to the clause's own position.

    Returns
    -------
    ParsedStory
        Sentences, events with ids 1..n, actors and entities in first-mention order.

    Raises
    ------
    UnparsedSentenceError
        In strict mode, naming every clause no frame reads (``unread``), after reading
        the whole story.

    Examples
    --------
    >>> from beliefgraph.parsers.rules.templates import Template, Who, Mention
    >>> t = Template("enter", Who(names=("Ella",)), room=Mention("garage", "garage"))
    >>> story = assemble("Ella entered the garage.", [("Ella entered the garage.", 1, (t,))],
    ...                  strict=True)
    >>> story.events[0].kind, story.events[0].room, story.entities[0].kind
    ('enter', 'garage', 'room')
    """
    items = list(items)
    return _Story(items).build(text, items, strict, list(sources), list(sentence_of))


class _Story:
    def __init__(self, items: list[Item]) -> None:
        self.canon = _canonical_names(items)
        self.actors: dict[str, None] = {}
        self.kinds: dict[str, str] = {}
        self.last_object: str | None = None
        self.last_group: tuple[str, ...] | None = None
        self.last_single: str | None = None
        self.gender: dict[str, str] = {}
        self.recent: list[str] = []  # actors by last mention, most recent last
        self.subjects: tuple[str, ...] = ()  # who does the event being read
        self.where: dict[str, str | None] = {}
        self.left: dict[str, str | None] = {}
        self.before: dict[str, str] = {}  # the room an actor was in before their current one
        self.opened: str | None = None
        self.events: list[Event] = []

    def build(
        self,
        text: str,
        items: list[Item],
        strict: bool,
        sources: list[tuple[int | None, str]],
        sentence_of: list[int],
    ) -> ParsedStory:
        sentences = []
        unread: list[tuple[str, int, int | None, str]] = []
        for position, (clause, line, templates) in enumerate(items):
            index = sentence_of[position] if position < len(sentence_of) else position
            first = len(self.events) + 1
            parsed = templates is not None
            if templates is not None:
                try:
                    for t in templates:
                        self._event(t, clause, index, line)
                except _Unresolved:
                    del self.events[first - 1 :]
                    parsed = False
            if not parsed:
                physical, reason = sources[position] if position < len(sources) else (None, "")
                if templates is not None:
                    reason = "a pronoun with nothing to refer to"
                unread.append((clause, index, line if line is not None else physical, reason))
                self._unread(clause, index, line)
            ids = tuple(range(first, len(self.events) + 1))
            sentences.append(
                Sentence(index=index, text=clause, line=line, parsed=parsed, events=ids)
            )
        if strict and unread:
            first = unread[0]
            raise UnparsedSentenceError(first[0], first[1], first[2], unread=tuple(unread))
        entities = tuple(Entity(name=n, kind=_ENTITY_KIND[k]) for n, k in self.kinds.items())
        return ParsedStory(
            text=text,
            sentences=tuple(sentences),
            events=tuple(self.events),
            actors=tuple(self.actors),
            entities=entities,
            parser="rules",
        )

    # -- references ------------------------------------------------------------------------
    def _actors(self, who: Who | None, *, subject: bool = True) -> tuple[str, ...]:
        if who is None:
            return ()
        if who.pronoun == "they":
            if self.last_group is None:
                raise _Unresolved
            return self.last_group
        if who.pronoun in ("he", "she"):
            actor = self._single(who.pronoun, subject)
            self.gender.setdefault(actor, who.pronoun)
            self._mention((actor,))
            if subject:
                self.last_single = actor
            return (actor,)
        for name, gender in zip(who.names, who.genders or (None,) * len(who.names), strict=True):
            self.actors.setdefault(name, None)
            if gender is not None:
                self.gender.setdefault(name, gender)
        self._mention(who.names)
        if subject and len(who.names) > 1:
            self.last_group = who.names
        elif subject and who.names:
            self.last_single = who.names[0]
        return who.names

    def _single(self, pronoun: str, subject: bool) -> str:
        """The actor "he"/"she" refers to: the last single subject if the pronoun fits it,
        else the most recently mentioned actor it fits; an object pronoun is never the
        subject of its own clause ("Jack told her": not Jack)."""
        order = [a for a in (self.last_single, *reversed(self.recent)) if a is not None]
        for a in order:
            if self.gender.get(a, pronoun) == pronoun and (subject or a not in self.subjects):
                return a
        # No actor fits (the text is inconsistent about genders): the last single subject.
        if self.last_single is None:
            raise _Unresolved
        return self.last_single

    def _already(self, kind: str, actor: str, room: str | None) -> bool:
        if kind == "exit":
            return actor in self.left and self.where.get(actor) is None
        if kind == "enter":
            return self.where.get(actor) == room
        return False

    def _mention(self, names: Iterable[str]) -> None:
        for name in names:
            if name in self.recent:
                self.recent.remove(name)
            self.recent.append(name)

    def _name(self, m: Mention) -> str:
        if m.pronoun:
            if self.last_object is None:
                raise _Unresolved
            return self.last_object
        return self.canon.get(m.key, m.text)

    def _entity(self, m: Mention | None, kind: str) -> str | None:
        if m is None:
            return None
        name = self._name(m)
        old = self.kinds.get(name)
        if old is None or _KIND_RANK[kind] < _KIND_RANK[old]:
            self.kinds[name] = kind
        if kind in ("object", "owned"):  # "Sally has a marble. She puts it ..."
            self.last_object = name
        return name

    def _prop(self, p: PropTemplate, subject: str | None = None) -> Proposition:
        if p.about is not None:  # "Aria believes that the flour is fresh"
            assert isinstance(p.subject, Who)
            holder = subject or self._actors(p.subject)[0]
            return Proposition(
                content_type="Epistemic",
                subject=holder,
                relation=p.relation,
                holder=holder,
                about=self._prop(p.about),
            )
        if isinstance(p.subject, Who):
            subj = subject or self._actors(p.subject)[0]
        elif p.relation != "contains":
            # a thing located, or a thing something happens to ("the storm", "the oven")
            subj = self._entity(p.subject, "object") or ""
        else:
            subj = self._entity(p.subject, "container") or ""
        if isinstance(p.value, Mention):
            value: str | None = self._value(p, p.value)
        else:
            value = p.value
        if p.referent is not None:
            # "A seagull grabs the fish, dropping it": "it" is what the act was done to,
            # not the one acting, whose mention came first.
            self.last_object = self._name(p.referent)
        return Proposition(
            content_type=p.content_type,
            subject=subj,
            relation=p.relation,
            value=value,
            negated=p.negated,
            preposition=p.preposition,
        )

    def _value(self, p: PropTemplate, m: Mention) -> str | None:
        role = _VALUE_ROLES.get(p.relation)
        if role is None and p.content_type == "Action/Event" and p.relation not in _NOT_OBJECTS:
            role = "object"
        # Values of distractor facts ("loves the tangerine") are not story entities.
        return self._entity(m, role) if role else self._name(m)

    # -- events ----------------------------------------------------------------------------
    def _add(self, t: Template, clause: str, index: int, line: int | None, **fields) -> None:
        event = Event(
            id=len(self.events) + 1,
            kind=t.kind,
            sentence=clause,
            sentence_index=index,
            line=line,
            parser="rules",
            **fields,
        )
        self.events.append(event)

    def _event(self, t: Template, clause: str, index: int, line: int | None) -> None:
        kind = t.kind
        if kind == "narrate" and t.prop is not None and isinstance(t.prop.subject, Who):
            # A fact about each actor named: "Aiden loves the tangerine".
            for actor in self._actors(t.prop.subject):
                self._add(t, clause, index, line, proposition=self._prop(t.prop, actor))
            return
        actors = self._actors(t.actors)
        self.subjects = actors
        if t.place == "absent":
            # A state restated ("while Tom was at school" after he went there, "while Sally
            # was asleep" after she left): only actors it changes get the event.
            room = self._name(t.room) if t.room is not None else None
            actors = tuple(a for a in actors if not self._already(kind, a, room))
            if not actors:
                return
        if kind in ("enter", "exit", "stay"):
            room = self._entity(t.room, "room")
            if room is None and t.place == "back":
                room = self._back(actors)
            for a in actors:
                if kind == "exit":
                    self.left[a] = room or self.where.get(a)
                    self.where[a] = None
                else:
                    old = self.where.get(a)
                    self.where[a] = room or old or self.left.get(a)
                    if old is not None and old != self.where[a]:
                        self.before[a] = old
            self._add(t, clause, index, line, actors=actors, room=room)
        elif kind == "observe" and t.place == "find_in":
            self._find_in(t, actors, clause, index, line)
        elif kind == "observe" and t.place == "find" and self.opened is not None:
            box = self.opened
            obj = self._entity(t.obj, "object")
            prop = Proposition(
                content_type="Contents/Physical State", subject=box, relation="contains", value=obj
            )
            self._add(
                t, clause, index, line, actors=actors, obj=obj, destination=box, proposition=prop
            )
        elif kind == "observe" and t.place != "seen_in":
            obj = self._entity(t.obj, "object" if t.place == "find" else "container")
            self._add(t, clause, index, line, actors=actors, obj=obj)
        elif kind in ("open", "close"):
            box = self._entity(t.obj, "container")
            self.opened = box if kind == "open" else None
            self._add(t, clause, index, line, actors=actors, obj=box)
        elif kind == "label":
            box = self._entity(t.obj, "container")
            prop = self._prop(t.prop) if t.prop is not None else None
            self._add(t, clause, index, line, obj=box, proposition=prop)
        else:  # move, tell, narrated facts about things, "noticed that X is in Y"
            origin = self._entity(t.origin, "container")
            prop = self._prop(t.prop) if t.prop is not None else None
            obj = self._entity(t.obj, "object") if t.obj is not None else None
            dest = self._entity(t.destination, "container")
            hearers = self._actors(t.hearers, subject=False)
            self._add(
                t,
                clause,
                index,
                line,
                actors=actors,
                obj=obj,
                origin=origin,
                destination=dest,
                proposition=prop,
                hearers=hearers,
                private=t.private,
            )

    def _back(self, actors: tuple[str, ...]) -> str | None:
        """Where "came back" leads: the room each actor left, or was in before their
        current one ("went into the garden ... came back": the kitchen), when all agree."""
        rooms = {
            self.left.get(a) if self.where.get(a) is None else self.before.get(a) for a in actors
        }
        room = rooms.pop() if len(rooms) == 1 else None
        if room is not None:
            self.kinds.setdefault(room, "room")
        return room

    def _find_in(
        self, t: Template, actors: tuple[str, ...], clause: str, index: int, line: int | None
    ) -> None:
        assert t.obj is not None and t.destination is not None
        place = self._name(t.destination)
        thing = self._name(t.obj)
        known = self.kinds.get(place)
        is_room = known == "room" or (
            known is None
            and (
                self.kinds.get(thing) in ("container", "owned")
                or not any(self.where.get(a) for a in actors)
            )
        )
        if is_room:
            room = self._entity(t.destination, "room")
            obj = self._entity(t.obj, "container")
            for a in actors:
                self.where[a] = room
            self._add(t, clause, index, line, actors=actors, obj=obj, room=room)
            return
        obj = self._entity(t.obj, "object")
        box = self._entity(t.destination, "container")
        prop = Proposition(content_type="Location", subject=obj or "", relation="in", value=box)
        self._add(t, clause, index, line, actors=actors, obj=obj, destination=box, proposition=prop)

    def _unread(self, clause: str, index: int, line: int | None) -> None:
        prop = Proposition(
            content_type="Action/Event", subject="world", relation="state", value=clause
        )
        self.events.append(
            Event(
                id=len(self.events) + 1,
                kind="narrate",
                proposition=prop,
                sentence=clause,
                sentence_index=index,
                line=line,
                parser="rules",
            )
        )


def _canonical_names(items: list[Item]) -> dict[str, str]:
    """Map each lemma key to the story's first singular spelling (else its first spelling)."""
    first: dict[str, str] = {}
    singular: dict[str, str] = {}
    for _, _, templates in items:
        for t in templates or ():
            for m in _mentions(t):
                first.setdefault(m.key, m.text)
                if m.text.lower() == m.key:
                    singular.setdefault(m.key, m.text)
    return {key: singular.get(key, text) for key, text in first.items()}


def _mentions(t: Template) -> Iterable[Mention]:
    parts = [t.obj, t.origin, t.destination, t.room]
    if t.prop is not None:
        parts += [t.prop.subject, t.prop.value]
    return (m for m in parts if isinstance(m, Mention) and not m.pronoun)
