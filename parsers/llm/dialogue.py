"""Dialogues: turns (or a ``Speaker: utterance`` transcript) to utterance events.

Every spoken turn becomes at least one ``tell`` event by its speaker, perceived by all the
participants (``Event.perceivers`` set explicitly), its hearers the other participants or
the ones addressed. A private thought becomes a ``narrate`` event perceived by its holder
alone. With an LLM the content is typed: an assertion tells its claim, a question, promise
or request tells the act (``Action/Event``), a stated feeling or wish tells a proposition of
that mental-state type. A turn the model reads nothing from still yields its event, with
the words said as content (``Action/Event``: speaker ``say`` text), so no turn is dropped.

Transcript lines (one turn per line; a line that matches no speaker continues the turn):

- ``Anne: I put the ball in the box.`` or ``Anne: "I put ..."`` (quotes are stripped);
- ``Anne: (He must not find it.) "Hello!"``: ToMATO's form, the parenthesised part is
  Anne's private thought, the rest her utterance;
- ``Anne (thinks): He must not find it.``: a thought (also ``thought``, ``thinking``,
  ``to herself``, ``aside``);
- ``Anne (to Bob): ...``: addressed to Bob, heard by everyone;
- ``Anne (whispers to Bob): ...``: heard by Bob only (also ``privately to``).

Limits: a participant is anyone who speaks or is addressed (pass ``participants`` to add
silent listeners); everyone hears every public turn, as in a two-party chat.

Examples
--------
>>> [t.kind for t in read_transcript('Liam: (He looks tired.) "Hi!"\\nJax: Hello.')]
['think', 'say', 'say']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from beliefgraph.models import Event, ParsedStory, Proposition, Sentence

from .convert import Names, item_events, item_proposition
from .errors import AnswerPending
from .schema import Action, Item, StoryParse, Utterance, name_key, short_names
from .templates import render
from .usage import collect_usage  # light: the client loads openai

if TYPE_CHECKING:
    from .parser import LLMParser

__all__ = [
    "Turn",
    "aparse_dialogue",
    "is_transcript",
    "parse_dialogue",
    "read_transcript",
]

_LINE = re.compile(
    r"^\s*(?P<name>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,3})\s*"
    r"(?:[(\[](?P<note>[^)\]]{1,60})[)\]])?\s*:\s*(?P<body>.*)$"
)
_THOUGHT_NOTES = re.compile(
    r"^(?:thinks?|thought|thinking|to (?:him|her|them)sel(?:f|ves)|aside)$", re.I
)
_PRIVATE_TO = re.compile(r"^(?:whispers?|privately|quietly|secretly)(?: to)? (?P<who>.+)$", re.I)
_TO = re.compile(r"^(?:says? )?to (?P<who>.+)$", re.I)
_PAREN = re.compile(r"\(([^()]*)\)")
_QUOTES = "\"'“”‘’"


@dataclass(frozen=True)
class Turn:
    """One turn: a speaker says (``kind="say"``) or privately thinks (``"think"``) a text."""

    speaker: str
    text: str
    kind: Literal["say", "think"] = "say"
    to: tuple[str, ...] = ()
    """Who it is addressed to (empty: the other participants)."""
    private: bool = False
    """Heard by the addressees only."""
    line: int | None = None
    """The transcript line it came from (1-based)."""

    def render(self) -> str:
        """The turn as the model sees it: ``Anne says: ...`` / ``Anne thinks: ...``."""
        verb = "thinks" if self.kind == "think" else "says"
        if self.kind == "say" and self.to:
            verb = f"{'whispers' if self.private else 'says'} to {' and '.join(self.to)}"
        return f"{self.speaker} {verb}: {self.text}"


def _split_names(who: str) -> tuple[str, ...]:
    parts = re.split(r"\s*(?:,|\band\b)\s*", who.strip())
    return tuple(p for p in parts if p)


def _speaker_line(line: str) -> re.Match[str] | None:
    m = _LINE.match(line)
    if m is None:
        return None
    note = (m["note"] or "").strip()
    ok = not note or _THOUGHT_NOTES.match(note) or _PRIVATE_TO.match(note) or _TO.match(note)
    return m if ok else None


def is_transcript(text: str) -> bool:
    """Whether every non-empty line is a ``Speaker: utterance`` turn (two lines at least).

    Examples
    --------
    >>> is_transcript("Anne: Hi.\\nBob: Hello."), is_transcript("Anne left. Bob came.")
    (True, False)
    """
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return len(lines) >= 2 and all(_speaker_line(ln) for ln in lines)


def read_transcript(text: str) -> list[Turn]:
    """The turns of a transcript, thoughts split from utterances (see the module docstring).

    Raises
    ------
    DataFormatError
        When the first non-empty line names no speaker.
    """
    from beliefgraph.errors import DataFormatError

    turns: list[Turn] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        m = _speaker_line(raw)
        if m is None:
            if not turns:
                raise DataFormatError(
                    f"transcript line {number} names no speaker: {raw.strip()!r}; expected "
                    "'Speaker: utterance'"
                )
            last = turns[-1]
            turns[-1] = Turn(last.speaker, f"{last.text} {raw.strip()}", last.kind, last.to,
                             last.private, last.line)  # fmt: skip
            continue
        speaker, note, body = m["name"].strip(), (m["note"] or "").strip(), m["body"].strip()
        if _THOUGHT_NOTES.match(note):
            turns.append(Turn(speaker, _unquote(body), "think", line=number))
            continue
        to: tuple[str, ...] = ()
        private = False
        if pm := _PRIVATE_TO.match(note):
            to, private = _split_names(pm["who"]), True
        elif tm := _TO.match(note):
            to = _split_names(tm["who"])
        for thought in _PAREN.findall(body):
            if thought.strip():
                turns.append(Turn(speaker, thought.strip(), "think", line=number))
        said = _unquote(_PAREN.sub(" ", body))
        if said or not _PAREN.search(body):
            turns.append(Turn(speaker, said, "say", to, private, number))
    return turns


def _unquote(text: str) -> str:
    text = " ".join(text.split())
    if len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1].strip()
    return text


def _participants(turns: Sequence[Turn], extra: Iterable[str] = ()) -> list[str]:
    people: dict[str, str] = {}
    for name in [*(t.speaker for t in turns), *(a for t in turns for a in t.to), *extra]:
        people.setdefault(name_key(name), name)
    return list(people.values())


# -- parsing ----------------------------------------------------------------------------------
def _request(turns: Sequence[Turn], people: list[str], strict: bool, checks: tuple) -> Any:
    from beliefgraph.text import FIRST, numbered

    from .client import Request

    prompt, messages = render(
        "dialogue", actors=", ".join(people), sentences=numbered(t.render() for t in turns)
    )
    context = {
        "sentences": [t.render() for t in turns],
        "first": FIRST,
        "actors": people,
        "speakers": {i: t.speaker for i, t in enumerate(turns) if t.kind == "say"},
        "coverage": strict,
    }
    return Request(prompt, tuple(messages), context, checks, StoryParse)


def parse_dialogue(
    turns: Sequence[Turn],
    *,
    parser: LLMParser | None = None,
    participants: Iterable[str] = (),
    text: str | None = None,
    name: str | None = None,
) -> ParsedStory:
    """Build the dialogue's events; with ``parser``, one LLM call types what is said.

    Parameters
    ----------
    turns : sequence of Turn
        In order; see ``read_transcript`` for text.
    parser : LLMParser, optional
        Types each turn's content. Without it each turn tells its words (``say``) and
        each thought is narrated to its holder (``think``), with no call.
    participants : iterable of str
        Listeners who never speak.
    text : str, optional
        The transcript, kept as ``ParsedStory.text``.
    name : str, optional
        The parser name recorded on the story.

    Examples
    --------
    >>> s = parse_dialogue([Turn("Ann", "Hi."), Turn("Bob", "I am cold.", "think")])
    >>> [(e.kind, e.perceivers) for e in s.events]
    [('tell', ('Ann', 'Bob')), ('narrate', ('Bob',))]
    """
    people = _participants(turns, participants)
    label = name or (parser.name if parser else None)
    if parser is None or not turns:
        return _dialogue_story(turns, people, None, text, label)
    request = _request(turns, people, parser.strict, parser.checks)
    with collect_usage() as used:
        parser.last_usage = used  # live: complete on error too
        try:
            story = parser._run(
                request, lambda parse: _dialogue_story(turns, people, parse, text, label)
            )
        except AnswerPending as pending:
            from .parser import pending_story

            if parser.strict:
                raise
            # The turns still tell their words; their typed content waits for the batch.
            story = pending_story(
                _dialogue_story(turns, people, None, text, label), pending, every=True
            )
    return story


async def aparse_dialogue(
    turns: Sequence[Turn],
    *,
    parser: LLMParser | None = None,
    participants: Iterable[str] = (),
    text: str | None = None,
    name: str | None = None,
) -> ParsedStory:
    """The async ``parse_dialogue``."""
    people = _participants(turns, participants)
    label = name or (parser.name if parser else None)
    if parser is None or not turns:
        return _dialogue_story(turns, people, None, text, label)
    request = _request(turns, people, parser.strict, parser.checks)
    with collect_usage() as used:
        parser.last_usage = used  # live: complete on error too
        try:
            story = await parser._arun(
                request, lambda parse: _dialogue_story(turns, people, parse, text, label)
            )
        except AnswerPending as pending:
            from .parser import pending_story

            if parser.strict:
                raise
            story = pending_story(
                _dialogue_story(turns, people, None, text, label), pending, every=True
            )
    return story


def _dialogue_story(
    turns: Sequence[Turn],
    people: list[str],
    parse: StoryParse | None,
    text: str | None,
    name: str | None,
) -> ParsedStory:
    if parse is not None:
        from beliefgraph.text import FIRST

        parse = parse.shifted(FIRST)  # the reply counts the turns as the prompt did, from 1
    names = Names(people, (e.name for e in parse.entities) if parse else ())
    for alias, full in short_names(people).items():  # the model may say "Liam" for "Liam J"
        names.actors.setdefault(alias, names.actor(full))
    by_turn: dict[int, list[Item]] = {}
    for item in parse.items if parse else ():
        by_turn.setdefault(item.sentence, []).append(item)
    source = "llm" if parse is not None else "transcript"
    events: list[Event] = []
    sentences: list[Sentence] = []
    for i, turn in enumerate(turns):
        speaker = names.actor(turn.speaker)
        ids: list[int] = []
        items = by_turn.get(i, [])
        for fields in _turn_events(turn, speaker, items, names, people):
            events.append(Event(
                id=len(events) + 1, sentence=turn.render(), sentence_index=i, line=turn.line,
                parser=source if items else "transcript", **fields,
            ))  # fmt: skip
            ids.append(len(events))
        sentences.append(Sentence(index=i, text=turn.render(), line=turn.line, events=tuple(ids)))
    entities = []
    implied: tuple = ()
    if parse is not None:
        from .convert import entities_of, implied_beliefs

        entities = entities_of(parse, names, events)
        implied = implied_beliefs(parse.beliefs, names)
    return ParsedStory(
        text=text if text is not None else "\n".join(t.render() for t in turns),
        sentences=tuple(sentences),
        events=tuple(events),
        actors=tuple(names.actor(p) for p in people),
        entities=tuple(entities),
        implied=implied,
        parser=name or source,
    )


def _turn_events(
    turn: Turn, speaker: str, items: list[Item], names: Names, people: list[str]
) -> list[dict[str, Any]]:
    if turn.kind == "think":
        props = [p for p in (_proposition(i, names) for i in items) if p is not None]
        if not props:
            props = [_words(speaker, "think", turn.text)]
        return [{"kind": "narrate", "proposition": p, "perceivers": (speaker,)} for p in props]
    hearers = tuple(names.actor(a) for a in turn.to) or tuple(
        p for p in (names.actor(p) for p in people) if p != speaker
    )
    private = turn.private
    out: list[dict[str, Any]] = []
    for item in items:
        prop = _proposition(item, names)
        if prop is None:
            continue
        item_hearers, item_private = hearers, private
        if isinstance(item, Utterance):
            addressed = tuple(names.actor(a) for a in item.addressees
                              if name_key(a) in {name_key(p) for p in people})  # fmt: skip
            item_hearers = addressed or hearers
            item_private = private or item.private
        perceivers = (
            (speaker, *item_hearers) if item_private else tuple(names.actor(p) for p in people)
        )
        out.append({
            "kind": "tell", "actors": (speaker,), "hearers": item_hearers,
            "private": item_private, "proposition": prop,
            "perceivers": tuple(dict.fromkeys(perceivers)),
        })  # fmt: skip
    if not out:
        perceivers = (speaker, *hearers) if private else tuple(names.actor(p) for p in people)
        out.append({
            "kind": "tell", "actors": (speaker,), "hearers": hearers, "private": private,
            "proposition": _words(speaker, "say", turn.text),
            "perceivers": tuple(dict.fromkeys(perceivers)),
        })  # fmt: skip
    return out


def _proposition(item: Item, names: Names) -> Proposition | None:
    prop = item_proposition(item, names)
    if prop is None and isinstance(item, Action):  # enter / exit / open ... as a reported act
        (fields,) = item_events(item, names)
        subject = fields["actors"][0] if fields.get("actors") else "someone"
        value = fields.get("room") or fields.get("obj")
        prop = Proposition(content_type="Action/Event", subject=subject, relation=item.kind,
                           value=value)  # fmt: skip
    return prop


def _words(speaker: str, verb: str, text: str) -> Proposition:
    return Proposition(
        content_type="Action/Event", subject=speaker, relation=verb, value=text or None
    )
