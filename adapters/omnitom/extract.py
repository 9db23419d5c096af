"""Stage 1 from the graph: the belief table of any tracked story, phrased like the gold.

``extract`` lists the rows the benchmark asks for (seed 000, Sec. 3 and App. C.2):

1. the world facts (order 0), every span, in story order;
2. then each actor, in order of first mention: the actor's first-order beliefs, every span
   in story order, except beliefs about the actor's own location and own actions (the gold
   never lists them: an agent knows where it is and what it did);
3. after them, that actor's nested beliefs (order 2 and 3, chains without adjacent repeats)
   about the *contested* variables: those on which some actor ends the story with a false
   first-order belief. The other nested beliefs repeat the shared scene ("Bob thinks the box
   is in the room") and are left out unless ``nested="all"``;
4. last, the actor's implied beliefs (``BeliefGraph.implied``: what the parse read between
   the lines, in its own minimal words), those whose holder perceived their evidence, nested
   ones too unless ``nested="none"``; a row already listed in the same words is not
   repeated. The beliefs the graph propagated from them (a listener's view of a speaker's
   intent) are listed only with ``nested="all"``.

Each row is one atomic third-person proposition with names resolved, phrased as the gold
phrases it: "There is a cabinet in the bedroom" for a container in a room, "There is a tie
in the cabinet" for a narrated object's first place, "The tie is in the box" after that and
in every actor's mind, "Youyou leaves the bedroom" in the world and "Youyou left the bedroom"
as an actor's memory of it, "Bob thinks Alice thinks the object is in the box" for nesting.
Articles and plurals are read from the story ("There is tape in ...", "There are socks ...").

The table is written three ways: the paper's pipe table (``pipe_table``), records exactly
like the release (``to_record``), and the semantic judge's CSV (``judge_csv``).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from beliefgraph.errors import ConfigurationError, DataFormatError
from beliefgraph.models import Belief, Proposition

from .labeler import Labeler, TruthMode
from .records import WORLD, OmniRow, is_world

if TYPE_CHECKING:
    from beliefgraph.graph import BeliefGraph

__all__ = [
    "ExtractedRow",
    "extract",
    "judge_csv",
    "phrase",
    "pipe_table",
    "read_pipe_table",
    "to_record",
]

Nested = Literal["contested", "all", "none"]


@dataclass(frozen=True)
class ExtractedRow:
    """A Stage 1 row with the graph belief behind it."""

    row: OmniRow
    """Actor, belief text, order and the seven labels."""
    belief: Belief
    """The graph's belief (holder chain, proposition, span, labels)."""


def extract(
    graph: BeliefGraph,
    *,
    max_order: int = 3,
    nested: Nested = "contested",
    self_beliefs: bool = False,
    truth: TruthMode = "graph",
    labeler: Labeler | None = None,
) -> list[ExtractedRow]:
    """The Stage 1 table of ``graph``, each row labelled for Stage 2.

    Parameters
    ----------
    graph : BeliefGraph
        A tracked story.
    max_order : int
        The deepest order listed (the schema stops at 3).
    nested : {"contested", "all", "none"}
        Which nested beliefs to list: those about contested variables (see the module
        docstring), every one held at the story's end, or none.
    self_beliefs : bool
        List actors' beliefs about their own location and actions too.
    truth : {"graph", "auto", "solver"}
        Where Truth Status comes from (see ``Labeler``); ignored when ``labeler`` is given.
    labeler : Labeler, optional
        A ready labeler for ``graph``.

    Returns
    -------
    list of ExtractedRow
        World facts first, then each actor's rows.

    Raises
    ------
    ConfigurationError
        For ``max_order`` outside 0..3 or an unknown ``nested``.

    Examples
    --------
    >>> from beliefgraph import track
    >>> g = track("Alice and Bob are in a room. There is an object in a box. Bob leaves. "
    ...           "Alice moves the object to the safe.")
    >>> print(pipe_table([r.row for r in extract(g)]))
    Actor | Belief | Order
    world | Alice is in the room | 0
    world | Bob is in the room | 0
    world | There is an object in the box | 0
    world | There is a box in the room | 0
    world | Bob leaves the room | 0
    world | Alice moves the object to the safe | 0
    world | The object is in the safe | 0
    world | There is a safe in the room | 0
    Alice | Bob is in the room | 1
    Alice | The object is in the box | 1
    Alice | There is a box in the room | 1
    Alice | Bob left the room | 1
    Alice | The object is in the safe | 1
    Alice | There is a safe in the room | 1
    Alice | Bob thinks the object is in the box | 2
    Alice | Bob thinks Alice thinks the object is in the box | 3
    Bob | Alice is in the room | 1
    Bob | The object is in the box | 1
    Bob | There is a box in the room | 1
    Bob | Alice thinks the object is in the box | 2
    Bob | Alice thinks Bob thinks the object is in the box | 3
    """
    if not 0 <= max_order <= 3:
        raise ConfigurationError(f"max_order must be 0..3 (the schema's orders), got {max_order}")
    if nested not in ("contested", "all", "none"):
        raise ConfigurationError(f"nested must be 'contested', 'all' or 'none', got {nested!r}")
    lab = labeler or Labeler(graph, truth=truth)
    words = _Words(graph)
    out: list[ExtractedRow] = []

    listed: dict[tuple[str, int], list[frozenset[str]]] = {}

    def add(actor: str, b: Belief, *, implied_row: bool = False) -> None:
        p = b.proposition
        if p.relation == "in" and p.value is not None and p.value == p.subject:
            return  # a place inside itself ("the bedroom is in the bedroom") says nothing
        text = phrase(b, graph, words=words)
        key, seen = _key(text), listed.setdefault((actor, b.order), [])
        # One row per statement: tellings read from one quoted sentence say it once, and a
        # belief the parse implied is not repeated when a row already says it.
        if key in seen or (implied_row and _restates(key, seen)):
            return
        seen.append(key)
        out.append(ExtractedRow(OmniRow(actor=actor, belief=text, labels=lab.labels(b)), b))

    variables = graph.variables
    implied = set(graph.implied.beliefs)
    world = [b for v in variables for b in graph.timeline_of((), variable=v)]
    for b in sorted(world, key=words.sort_key):
        add(WORLD, b)
    if max_order == 0:
        return out
    cast = [c for c in graph.chains(1) if c]
    firsts = {
        c[0]: [b for v in variables for b in graph.timeline_of(c, variable=v) if b not in implied]
        for c in cast
    }
    contested = _contested(graph, firsts)
    for (actor,) in cast:
        own = [b for b in firsts[actor] if self_beliefs or not _about_self(actor, b.proposition)]
        # A hearer's belief in what was said stands for the telling itself; the act is
        # listed when its content is not believed (a question, a request, a doubted claim).
        content = {b.provenance[:1] for b in own if b.provenance and not _telling(b.proposition)}
        own = [b for b in own if not (_telling(b.proposition) and b.provenance[:1] in content)]
        for b in sorted(own, key=words.sort_key):
            add(actor, b)
        if nested != "none" and max_order >= 2:
            for chain in graph.chains(max_order):
                if len(chain) < 2 or chain[0] != actor:
                    continue
                for v in variables if nested == "all" else contested:
                    held = [b for b in graph.timeline_of(chain, variable=v) if b not in implied]
                    if held and held[-1].holds_at(graph.end):
                        add(actor, held[-1])
        read = graph.implied.shown()
        if nested == "all":
            read += list(graph.implied.propagated)
        for b in read:
            if b.holders[0] != actor or b.order > max_order or (b.order > 1 and nested == "none"):
                continue
            add(actor, b, implied_row=True)
    return out


def _key(text: str) -> frozenset[str]:
    """The words of a row, for telling a repeated row apart (case and order ignored)."""
    return frozenset(re.findall(r"[a-z0-9']+", text.lower()))


_FUNCTION_WORDS = frozenset(
    ("a", "an", "the", "is", "are", "was", "were", "be", "to", "of", "in", "on", "at", "for",
     "and", "or", "that", "this", "it", "its", "his", "her", "their")
)  # fmt: skip


def _restates(key: frozenset[str], seen: list[frozenset[str]]) -> bool:
    """Whether a row already says all the content words of ``key`` (three at least)."""
    words = key - _FUNCTION_WORDS
    return len(words) >= 3 and any(words <= other for other in seen)


def _telling(p: Proposition) -> bool:
    """Whether ``p`` is the act of telling ("Ann tells Bob that ...")."""
    return p.relation == "tell" and p.about is not None


def _about_self(actor: str, p: Proposition) -> bool:
    return p.subject == actor and p.content_type in ("Location", "Action/Event")


def contested_variables(graph: BeliefGraph) -> list[tuple[str, ...]]:
    """The variables some actor ends the story believing falsely (first-order, the graph's
    own beliefs, not the parse's implied ones), in first-mention order.

    Examples
    --------
    >>> from beliefgraph import track
    >>> contested_variables(track("Ann and Bob are in the kitchen. There is an apple in the "
    ...                           "basket. Bob leaves. Ann moves the apple to the box."))
    [('apple', 'in')]
    """
    implied = set(graph.implied.beliefs)
    firsts = {
        c[0]: [b for v in graph.variables for b in graph.timeline_of(c, variable=v)
               if b not in implied]
        for c in graph.chains(1)
        if c
    }  # fmt: skip
    return _contested(graph, firsts)


def _contested(graph: BeliefGraph, firsts: dict[str, list[Belief]]) -> list[tuple[str, ...]]:
    """Variables some actor ends the story believing falsely, in first-mention order."""
    bad = {
        b.proposition.variable
        for beliefs in firsts.values()
        for b in beliefs
        if b.end is None and b.truth_status == "False"
    }
    return [v for v in graph.variables if v in bad]


# -- phrasing ----------------------------------------------------------------------------------
_PAST = {"leave": "left", "go": "went", "put": "put", "find": "found", "see": "saw",
         "tell": "told", "take": "took", "come": "came", "get": "got", "say": "said",
         "have": "had", "be": "was", "stay in": "stayed in"}  # fmt: skip
_VOWEL = re.compile(r"^[aeiou]", re.I)


class _Words:
    """What the story says about its names: articles, plurality, kinds, mention order."""

    def __init__(self, graph: BeliefGraph) -> None:
        self.text = graph.story.text
        self.kinds = {e.name: e.kind for e in graph.story.entities}
        self.actors = set(graph.actors)
        # Words that stay capitalised inside a sentence: the first words of names.
        self.first_words = {a.split(" ", 1)[0] for a in graph.actors} | {"I"}
        self.first_spans: set[tuple[tuple[str, ...], int]] = set()
        for v in graph.variables:
            spans = graph.timeline_of((), variable=v)
            if spans:
                self.first_spans.add((v, spans[0].start))

    def article(self, name: str) -> str:
        """The article "a", "an" or "" (mass nouns, plurals), as the story first writes it."""
        m = re.search(rf"(?i)\b(?:(a|an|the|some)\s+)?{re.escape(name)}\b", self.text)
        art = (m[1] or "").lower() if m else "a"
        if art in ("a", "an"):
            return art
        if art == "the" or (not m and not self.plural(name)):
            return "an" if _VOWEL.match(name) else "a"
        return ""

    @staticmethod
    def plural(name: str) -> bool:
        word = name.split()[-1].lower()
        return word.endswith("s") and not word.endswith(("ss", "us", "is"))

    def mention(self, name: str) -> int:
        i = self.text.find(name)
        return i if i >= 0 else len(self.text)

    def sort_key(self, b: Belief) -> tuple[int, int, int]:
        """Story order: by start; an action before the state it produces; then mention."""
        p = b.proposition
        return (b.start, 0 if p.content_type == "Action/Event" else 1, self.mention(p.subject))


def phrase(belief: Belief, graph: BeliefGraph, *, words: _Words | None = None) -> str:
    """The belief as the gold writes it (the holder's own name is the row's actor).

    Examples
    --------
    >>> from beliefgraph import track
    >>> g = track("Li Lei and Han Meimei are wandering in the living room, they see a backpack "
    ...           "and a briefcase, they find socks in the backpack, Han Meimei leaves the "
    ...           "living room, Li Lei moves the socks to the briefcase.")
    >>> first, hers = g.belief((), obj="socks", at=4), g.belief(("Han Meimei",), obj="socks")
    >>> phrase(first, g), phrase(hers, g)
    ('There are socks in the backpack', 'The socks are in the backpack')
    >>> phrase(g.belief(("Li Lei", "Han Meimei"), obj="socks"), g)
    'Han Meimei thinks the socks are in the backpack'
    """
    words = words or _Words(graph)
    p = belief.proposition
    inner = "".join(f"{h} thinks " for h in belief.holders[1:])
    if belief.wording:  # the parser's own minimal words
        clause = belief.wording
        last = belief.holders[-1] if len(belief.holders) > 1 else None
        said = (
            _EPISTEMIC.match(clause.removeprefix(last))
            if last and clause.startswith(last)
            else None
        )
        if said:  # "Bob knows that p" held by Ann about Bob: the gold's "Bob thinks p", once
            inner, clause = inner.removesuffix(f"{last} thinks "), f"{last} thinks {said['p']}"
        if inner and clause.split(" ", 1)[0] not in words.first_words:
            clause = clause[:1].lower() + clause[1:]
        text = inner + clause
        return text[:1].upper() + text[1:]
    if _telling(p) and (quoted := _quoted(belief, graph)):
        return inner + quoted
    world = not belief.holders
    existential = world and (p.variable, belief.start) in words.first_spans
    clause = _clause(p, words, past=not world, existential=existential)
    text = inner + clause
    return text[:1].upper() + text[1:]


_EPISTEMIC = re.compile(
    r" (?:thinks|believes|knows|understands|realizes|realises|assumes)(?: that)? (?P<p>.+)"
)
_QUOTE = re.compile(r'["\u201c]([^"\u201d]+)["\u201d]')


def _quoted(belief: Belief, graph: BeliefGraph) -> str | None:
    """A telling as the story quotes it: ``Ann says to Bob, "..."`` (None: no quotation)."""
    if not belief.provenance or not 1 <= belief.provenance[0] <= len(graph.events):
        return None
    event = graph.events[belief.provenance[0] - 1]
    found = _QUOTE.findall(event.sentence)
    if not found or not event.actors:
        return None
    to = f" to {', '.join(event.hearers)}" if event.hearers else ""
    quote = " ".join(" ".join(found).split())
    return f'{event.actors[0]} says{to}, "{quote}"'


def _noun(name: str, words: _Words) -> str:
    if name in words.actors or name[:1].isupper() or re.match(r"(?i)(?:the|a|an)\s", name):
        return name  # a name, or a parse that kept the article ("the room")
    return f"the {name}"


def _clause(p: Proposition, words: _Words, *, past: bool, existential: bool) -> str:
    subject, value = p.subject, p.value or ""
    if (subject, p.relation) == ("world", "state") and value:  # a sentence no rule read
        return value.strip().rstrip(".!")
    if p.relation == "in" and not p.negated and value:
        kind = words.kinds.get(subject)
        if subject in words.actors:
            return f"{subject} is in {_noun(value, words)}"
        if kind == "container" or existential:
            art = words.article(subject)
            be = "are" if words.plural(subject) else "is"
            thing = f"{art} {subject}" if art else subject
            return f"there {be} {thing} in {_noun(value, words)}"
        be = "are" if words.plural(subject) else "is"
        return f"{_noun(subject, words)} {be} in {_noun(value, words)}"
    if p.relation in ("stay", "stay in") and value and subject in words.actors:
        return f"{subject} is in {_noun(value, words)}"  # presence, as the gold states it
    if p.content_type == "Action/Event" and p.about is None and not p.negated:
        verb = _PAST.get(p.relation, _regular_past(p.relation)) if past else None
        if verb is not None:
            tail = f" {_noun(value, words)}" if value else ""
            if p.target:
                tail += f" to {_noun(p.target, words)}"
            return f"{_noun(subject, words)} {verb}{tail}"
    text = p.render()
    return text[:1].lower() + text[1:] if not text[:1].isupper() else text


def _regular_past(lemma: str) -> str:
    head, _, rest = lemma.partition(" ")
    if head.endswith("e"):
        head += "d"
    elif head.endswith("y") and head[-2:-1] not in tuple("aeiou"):
        head = head[:-1] + "ied"
    else:
        head += "ed"
    return f"{head} {rest}" if rest else head


# -- the three written forms -------------------------------------------------------------------
def pipe_table(rows: Iterable[OmniRow], *, labels: bool = False) -> str:
    """The paper's pipe-separated table: ``Actor | Belief | Order`` (and the seven labels).

    Examples
    --------
    >>> print(pipe_table([OmniRow(actor="world", belief="Bob leaves the room", order=0)]))
    Actor | Belief | Order
    world | Bob leaves the room | 0
    """
    head = ["Actor", "Belief", "Order"]
    if labels:
        head += ["Truth Status", "Knowledge Access", "Representation", "Content Type",
                 "Mental Source", "Context"]  # fmt: skip
    lines = [" | ".join(head)]
    for r in rows:
        cells = [r.actor, r.belief, "" if r.order is None else str(r.order)]
        if labels:
            lab = r.labels.model_dump() if r.labels is not None else {}
            cells += [lab.get(k, "") for k in _LABEL_KEYS]
        lines.append(" | ".join(cells))
    return "\n".join(lines)


_LABEL_KEYS = ("truth_status", "knowledge_access", "representation", "content_type",
               "mental_source", "context")  # fmt: skip
_HEADER_KEYS = {"actor": "actor", "belief": "belief", "order": "order",
                "truth status": "truth_status", "truth-status": "truth_status",
                "knowledge access": "knowledge_access", "knowledge-access": "knowledge_access",
                "representation": "representation", "content type": "content_type",
                "mental source": "mental_source", "mental-source": "mental_source",
                "context": "context"}  # fmt: skip


def read_pipe_table(text: str) -> list[dict[str, str]]:
    """Read a pipe table a model wrote (Stage 1 or Stage 2) into one dict per row.

    The header row names the columns; separator rows (``---``) and text around the table are
    skipped. Keys are ``actor``, ``belief``, ``order`` and the label dimensions.

    Raises
    ------
    DataFormatError
        When no header with Actor and Belief columns is found.

    Examples
    --------
    >>> text = "Here:\\n| Actor | Belief | Order |\\n|---|---|---|\\n| world | A left | 0 |"
    >>> read_pipe_table(text)
    [{'actor': 'world', 'belief': 'A left', 'order': '0'}]
    """
    rows: list[dict[str, str]] = []
    keys: list[str | None] | None = None
    for line in text.splitlines():
        if "|" not in line:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if keys is None:
            names = [_HEADER_KEYS.get(" ".join(c.lower().split())) for c in cells]
            if "actor" in names and "belief" in names:
                keys = names
            continue
        if all(re.fullmatch(r":?-{2,}:?", c) or not c for c in cells):
            continue
        row = {k: v for k, v in zip(keys, cells, strict=False) if k is not None}
        if row.get("actor") and row.get("belief"):
            rows.append(row)
    if keys is None:
        raise DataFormatError("no pipe table with 'Actor' and 'Belief' columns in the text")
    return rows


def judge_csv(rows: Sequence[OmniRow], match_counts: Sequence[int] | None = None) -> str:
    """The semantic judge's CSV: ``Actor,Belief`` (and ``MatchCount`` once judged).

    Examples
    --------
    >>> print(judge_csv([OmniRow(actor="world", belief="Bob waves, then leaves", order=0)], [1]))
    Actor,Belief,MatchCount
    world,"Bob waves, then leaves",1
    <BLANKLINE>
    """
    if match_counts is not None and len(match_counts) != len(rows):
        raise ConfigurationError(f"{len(match_counts)} match counts for {len(rows)} rows")
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["Actor", "Belief", *(["MatchCount"] if match_counts is not None else [])])
    for i, r in enumerate(rows):
        writer.writerow([r.actor, r.belief, *([match_counts[i]] if match_counts else [])])
    return buf.getvalue()


def to_record(
    rows: Iterable[OmniRow], *, story_id: int, story_category: str, story: str
) -> dict[str, Any]:
    """A story's rows as one record exactly like the release's JSONL lines.

    Rows without labels are written with their order only (``{"order": "1"}``).
    """
    beliefs: list[dict[str, Any]] = []
    for r in rows:
        if r.labels is not None:
            labels: dict[str, str] = r.labels.model_dump()
        else:
            labels = {
                "order": str(r.order if r.order is not None else (0 if is_world(r.actor) else 1))
            }
        beliefs.append({"actor": r.actor, "belief": r.belief, "labels": labels})
    return {"story_id": story_id, "story_category": story_category, "story": story,
            "beliefs": beliefs}  # fmt: skip
