"""OpenToM (Xu et al., 2024): the structured ``plot`` of each story, read as a template parse.

Every OpenToM story has an LLM-written ``narrative`` and the templated ``plot`` it was
written from ("Paxton entered the pantry.", "Both Hadley and Paxton noticed that the hat is
in the container in the pantry.", "Hadley moved the hat to the the trash can and Paxton
witnessed the action."). This adapter reads the *plot* with its own template reader
(``read_plot``, parser name ``opentom-plot``) and answers from the belief graph built on it;
the results are labelled "plot, template parse". Parsing the narrative needs the LLM parser.

Question types (the paper's, each scored by accuracy and macro-F1):

- location, coarse ("is the hat in its initial location?", Yes/No) and fine ("where
  precisely ...", a container), first order ("From Hadley's perspective, ...") and second
  order ("From Hadley's perspective, does Paxton think ...", the chain (Hadley, Paxton));
  the fine first-order file also asks the narrator where the object is at the start and end.
  Fine locations are scored as the paper does, as "initial" or "new" place.
- multihop fullness: "more / less / equally full" compares how many objects the chain
  believes are in the container at the end with how many it first believed were there.
- multihop accessibility: "equally accessible" when the holder does not believe the object
  moved; otherwise the direction comes from ``meta_data.json``, not from the graph: a
  destination named as someone's ("Landon's own closet") is more accessible to its owner and
  less to others; else the mover's stated aim decides (getting rid of it: less; showing it off:
  more; an inconsiderate mover who likes it keeps it: more for the mover, less for others).
  A considerate mover's aim does not say which way, so those are left unanswered. In text
  mode the aim is read from the narrative's graph instead (``reasoning.intent.aim_of``: the
  mover's stated intentions, "to get rid of it", "for Dakota to grab it"), never from
  ``meta_data.json``.
- attitude ("As Paxton, what is your attitude towards Hadley's action ...?"): answered only
  where the observer's preference (read into the graph from ``meta_data.json``) and the
  mover's aim settle it: getting rid of a thing the observer likes is negative, of one they
  hate positive; keeping a thing for oneself is negative to an observer who likes it and
  neutral to one who hates it. Everything else is unanswered. In text mode both the
  preference and the aim are the graph's, and bringing a thing in reach is positive to an
  observer who likes it and negative to one who hates it.
- second order in text mode: where the narrative says the first holder does not know what the
  second perceived ("Unbeknownst to A, B witnessed it", "Little did A know, B had left"), the
  chain is read from the perception A believes in (``reasoning.awareness.as_modelled_by``).

Where the plot's move sentence contradicts the story's ``meta_data.json`` record, the record
wins and ``meta["plot_repairs"]`` says so: whether the observer witnessed the move is the
release's ``observed`` field (26 development plots say "but X did not witness the action"
where ``observed`` is true and the narrative has X watching unseen), and the mover and the
destination are ``plot_info``'s. Limits: the reader knows the release's plot templates only;
a line it cannot read is kept as an unparsed sentence.

Labels the plot contradicts are classified (``ItemResult.disagreement``, ``DISAGREEMENTS``),
never answered to match: most contradicted second-order labels ask the mover and treat a
witnessed move as covert, or give the asker's own belief.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from beliefgraph.api import track
from beliefgraph.errors import ConfigurationError, DataFormatError, UnsupportedQuestionError
from beliefgraph.explain import explain
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Belief, Entity, Event, ParsedStory, Proposition, Sentence
from beliefgraph.reasoning.attitude import attitude_of
from beliefgraph.reasoning.awareness import as_modelled_by, perception_slips
from beliefgraph.reasoning.intent import aim_of, moves_of
from beliefgraph.solvers import PerceptionModel

from .benchmark import Benchmark, benchmarks
from .choices import normalise
from .item import Item, ItemResult
from .loading import LoadedItems, Problems, read_text, require_utf8, strict_if_none
from .metrics import UNANSWERED, macro_f1, macro_f1_of

__all__ = [
    "DISAGREEMENTS",
    "PAPER_SYSTEM",
    "PAPER_TEMPLATES",
    "QUESTION_TYPES",
    "PaperPrompt",
    "load_opentom",
    "make_opentom",
    "multihop_class",
    "paper_batches",
    "paper_prompt",
    "paper_protocol",
    "read_paper_reply",
    "read_plot",
]

PARSER = "opentom-plot"
"""The name the template reader's events carry (``Event.parser``, ``ParsedStory.parser``)."""

QUESTION_TYPES = (
    "location_coarse_fo",
    "location_coarse_so",
    "location_fine_fo",
    "location_fine_so",
    "multihop_fo",
    "multihop_so",
    "attitude",
)
"""The paper's question types, in its table order (coarse/fine location, multihop, attitude)."""

_META_FILES = ("meta_data.json", "meta_data_long.json")
_META_KEYS = ("plot", "plot_info")
_PLOT_INFO_KEYS = ("mover", "eoi", "original_place", "move_to_place", "observer")
_PERCEPTION = PerceptionModel()


# -- loading -----------------------------------------------------------------------------------
def load_opentom(path: Path, problems: Problems | None = None) -> list[Item]:
    """Read OpenToM question files with the ``meta_data.json`` beside them.

    ``path`` is the ``opentom_data`` folder (every question file in it) or one question file.
    Each item's ``story`` is the plot; ``meta`` carries the story id, the question type, the
    plot info, ``observed``, preferences, personality, the narrative and the plot repairs.

    Raises
    ------
    DataFormatError
        For a folder without question files, a missing or malformed ``meta_data.json``, or a
        malformed record (naming the file and line; with ``problems`` given, a bad story or
        question is collected there and the rest is read).
    """
    problems = strict_if_none(problems)
    files = sorted(f for f in path.glob("*.json") if f.name not in _META_FILES)
    if path.is_dir() and not files:
        raise DataFormatError(f"{path}: no OpenToM question files in this folder")
    if path.is_file():
        files = [path]
    folder = files[0].parent
    meta = _read_json(folder / "meta_data.json")
    if not isinstance(meta, dict):
        raise DataFormatError(f"{folder / 'meta_data.json'}: expected an object of stories")
    meta_lines = _key_lines(read_text(folder / "meta_data.json"))
    stories: dict[str, dict[str, Any] | None] = {}
    items: list[Item] = []
    for f in files:
        with problems.record(f):
            data = _read_json(f)
            if not isinstance(data, dict):
                raise DataFormatError(f"{f}: expected an object {{story_id: [questions]}}")
            key_lines = _key_lines(read_text(f))
            for story_id, questions in data.items():
                line = key_lines.get(story_id, 1)
                if story_id not in stories:
                    stories[story_id] = None  # reported once, however many files name it
                    with problems.record(f, line):
                        stories[story_id] = _story_meta(
                            folder / "meta_data.json", meta_lines, meta, story_id, f, line
                        )
                story = stories[story_id]
                with problems.record(f, line):
                    if not isinstance(questions, list):
                        raise DataFormatError(f"story {story_id!r}: expected a list")
                    if story is None:
                        raise DataFormatError(
                            f"story {story_id!r}: its {len(questions)} questions are skipped, "
                            "since its plot could not be read (reported above)"
                        )
                    for i, q in enumerate(questions):
                        with problems.record(f, line):
                            items.append(_item(f, line, story_id, i, q, story))
    return problems.result(items)


def _read_json(path: Path) -> Any:
    if not path.is_file():
        raise DataFormatError(
            f"{path}: no such file (OpenToM needs meta_data.json beside the question files)"
        )
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as err:
        raise DataFormatError(f"{path}:{err.lineno}: not valid JSON: {err.msg}") from None


_KEY = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:')


def _key_lines(text: str) -> dict[str, int]:
    """The line of each JSON object key's first occurrence (one pass over the file)."""
    lines: dict[str, int] = {}
    line, pos = 1, 0
    for m in _KEY.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        lines.setdefault(m.group(1), line)
    return lines


def _story_meta(
    meta_path: Path,
    meta_lines: dict[str, int],
    meta: dict[str, Any],
    story_id: str,
    source: Path,
    line: int,
) -> dict[str, Any]:
    record = meta.get(story_id)
    if record is None:
        raise DataFormatError(f"{source}:{line}: story {story_id!r} is not in {meta_path}")
    where = f"{meta_path}:{meta_lines.get(story_id, 1)}"
    if not isinstance(record, dict) or any(k not in record for k in _META_KEYS):
        raise DataFormatError(f"{where}: story {story_id!r} needs 'plot' and 'plot_info'")
    require_utf8(record, f"story {story_id!r} in {meta_path.name}")
    info = record["plot_info"]
    if not isinstance(info, dict) or any(not isinstance(info.get(k), str) for k in _PLOT_INFO_KEYS):
        raise DataFormatError(
            f"{where}: story {story_id!r}: plot_info needs the strings {list(_PLOT_INFO_KEYS)}"
        )
    out = {k: v for k, v in record.items() if k not in ("plot",)}
    out["story_id"] = story_id
    out["plot"] = record["plot"]
    out["plot_repairs"] = list(_PlotReader(out).read(record["plot"]).repairs)
    return out


def _item(f: Path, line: int, story_id: str, i: int, q: Any, story: dict[str, Any]) -> Item:
    if not isinstance(q, dict) or not all(
        isinstance(q.get(k), str) for k in ("question", "answer", "type")
    ):
        raise DataFormatError(
            f"{f}:{line}: story {story_id!r}, question {i}: expected "
            f"{{'question', 'answer', 'type'}} strings, got {q!r}"
        )
    require_utf8(q, f"story {story_id!r}, question {i}")
    released = q["type"]
    order = 2 if released.endswith("-so") else 1
    genre = released.split("-")[0]
    if genre == "location":
        grain = "coarse" if q["answer"] in ("Yes", "No") else "fine"
        qtype = f"location_{grain}_{'so' if order == 2 else 'fo'}"
    elif genre == "multihop":
        qtype = f"multihop_{'so' if order == 2 else 'fo'}"
    else:
        qtype = genre
    meta = {k: v for k, v in story.items() if k != "plot"}
    meta.update(file=f.name, line=line, type=released, question_type=qtype, order=order)
    return Item(
        id=f"{f.stem}:{story_id}:{i}",
        story=story["plot"],
        question=q["question"],
        answer=q["answer"],
        meta=meta,
    )


# -- the plot reader ---------------------------------------------------------------------------
_ENTER = re.compile(r"^(?P<a>.+?) entered the (?P<r>[^.]+)\.$")
_EXIT = re.compile(r"^(?P<a>.+?) exited the (?P<r>[^.]+)\.$")
_IS_IN = re.compile(r"^(?P<a>[A-Z]\w*) is in the (?P<r>[^.]+)\.$")
_NOTICE = re.compile(
    r"^Both (?P<a>.+?) and (?P<b>.+?) noticed that the (?P<o>.+?) (?:is|are) in the "
    r"(?P<c>.+?) in the ?(?P<r>[^.]*)\.$"
)
_MOVE = re.compile(
    r"^(?P<m>.+?) moved the (?P<o>.+?) to the (?P<d>.+) (?:and|but) (?P<w>\S+) "
    r"(?P<seen>witnessed|did not witness) the (?:action|event)\.$"
)
_PREFERENCE = re.compile(r"^(?P<a>[A-Z]\w*) (?P<v>likes|hates) (?:the )?(?P<o>.+?)\.?$")


@dataclass(frozen=True)
class _Reading:
    story: ParsedStory
    repairs: tuple[str, ...]


def read_plot(plot: str, meta: dict[str, Any] | None = None) -> ParsedStory:
    """Read an OpenToM plot into typed events (a template parse, parser ``opentom-plot``).

    ``meta`` is the story's ``meta_data.json`` record. Where the move sentence disagrees with
    it, the record wins: its ``observed`` field says whether the observer witnessed the move,
    its ``plot_info`` names the mover and the destination. The two characters' first-order
    preferences ("Paxton likes hat.") follow the plot as narrated facts each character knows
    about themself. A noticing is perceived by both characters, the move by the mover and,
    when witnessed, by the observer (each knowing the other saw it).

    Examples
    --------
    >>> s = read_plot("Ann entered the den.\\nBob entered the den.\\n"
    ...               "Both Ann and Bob noticed that the hat is in the box in the den.\\n"
    ...               "Ann moved the hat to the the bin and Bob did not witness the event.")
    >>> [(e.kind, e.perceivers) for e in s.events[2:]]
    [('observe', ('Ann', 'Bob')), ('move', ('Ann',))]
    >>> s.events[-1].destination, s.events[-1].cite()
    ('the bin', 'line 4 ("Ann moved the hat to the the bin and Bob did not witness the event.")')
    """
    return _PlotReader(meta or {}).read(plot).story


class _PlotReader:
    """One pass over a plot's lines; each template adds its events."""

    def __init__(self, meta: dict[str, Any]) -> None:
        self.info: dict[str, Any] = meta.get("plot_info") or {}
        self.observed = meta.get("observed")
        prefs = meta.get("preferences") or {}
        self.preferences = [
            str(prefs[k]).strip() for k in ("mover", "observer") if str(prefs.get(k) or "").strip()
        ]
        self.events: list[Event] = []
        self.actors: list[str] = []
        self.entities: dict[str, Entity] = {}
        self.repairs: list[str] = []

    def read(self, plot: str) -> _Reading:
        lines = [ln.strip() for ln in plot.split("\n") if ln.strip()]
        sentences: list[Sentence] = []
        for index, text in enumerate(lines + self.preferences):
            first = len(self.events)
            line = index + 1 if index < len(lines) else None
            if line is not None:
                self._plot_line(index, line, text)
            elif m := _PREFERENCE.match(text):
                who = self._actor(m["a"])
                prop = Proposition(
                    content_type="Desire/Intention",
                    subject=who,
                    relation=m["v"][:-1],
                    value=self._entity(m["o"], "object"),
                )
                self._add(index, None, text, kind="narrate", proposition=prop, perceivers=(who,))
            ids = tuple(e.id for e in self.events[first:])
            # A preference no template reads is meta data, not story: it stays "parsed".
            sentences.append(
                Sentence(
                    index=index, text=text, line=line, parsed=bool(ids) or line is None, events=ids
                )
            )
        story = ParsedStory(
            text="\n".join(lines + self.preferences),
            sentences=tuple(sentences),
            events=tuple(self.events),
            actors=tuple(self.actors),
            entities=tuple(self.entities.values()),
            parser=PARSER,
        )
        return _Reading(story, tuple(self.repairs))

    def _plot_line(self, index: int, line: int, text: str) -> None:
        if (m := _ENTER.match(text)) or (m := _IS_IN.match(text)):
            self._add(
                index,
                line,
                text,
                kind="enter",
                actors=(self._actor(m["a"]),),
                room=self._entity(m["r"], "room"),
            )
        elif m := _EXIT.match(text):
            self._add(
                index,
                line,
                text,
                kind="exit",
                actors=(self._actor(m["a"]),),
                room=self._entity(m["r"], "room"),
            )
        elif m := _NOTICE.match(text):
            who = (self._actor(m["a"]), self._actor(m["b"]))
            obj, container = self._entity(m["o"], "object"), self._entity(m["c"], "container")
            room = self._entity(m["r"], "room") if m["r"].strip() else None
            prop = Proposition(content_type="Location", subject=obj, relation="in", value=container)
            self._add(
                index,
                line,
                text,
                kind="observe",
                actors=who,
                obj=obj,
                room=room,
                proposition=prop,
                perceivers=who,
            )
        elif m := _MOVE.match(text):
            self._move(index, line, text, m)

    def _move(self, index: int, line: int, text: str, m: re.Match[str]) -> None:
        mover, witness = m["m"], m["w"]
        seen = m["seen"] == "witnessed"
        want_mover, want_observer = self.info.get("mover"), self.info.get("observer")
        if want_mover and mover != want_mover and witness == mover:
            self.repairs.append(
                f"mover: the move sentence names {mover} as both mover and witness; "
                f"plot_info's mover {want_mover} and observer {want_observer} are used"
            )
            mover, witness = want_mover, want_observer or witness
        if isinstance(self.observed, bool) and self.observed != seen:
            self.repairs.append(
                f"observed: the move sentence says {witness} "
                f"{'witnessed' if seen else 'did not witness'} it; the release's observed "
                f"field ({str(self.observed).lower()}) is used"
            )
            seen = self.observed
        dest = m["d"].strip()
        want_dest = str(self.info.get("move_to_place") or "").strip()
        if want_dest and normalise(dest) != normalise(want_dest):
            self.repairs.append(
                f"destination: the move sentence's {dest!r} differs from plot_info's "
                f"move_to_place {want_dest!r}, which is used"
            )
            dest = want_dest
        obj, dest = self._entity(m["o"], "object"), self._entity(dest, "container")
        prop = Proposition(content_type="Location", subject=obj, relation="in", value=dest)
        mover, witness = self._actor(mover), self._actor(witness)
        self._add(
            index,
            line,
            text,
            kind="move",
            actors=(mover,),
            obj=obj,
            destination=dest,
            proposition=prop,
            perceivers=(mover, witness) if seen else (mover,),
        )

    def _actor(self, name: str) -> str:
        if name not in self.actors:
            self.actors.append(name)
        return name

    def _entity(self, name: str, kind: Literal["object", "container", "room"]) -> str:
        self.entities.setdefault(name, Entity(name=name, kind=kind))
        return name

    def _add(self, index: int, line: int | None, text: str, **fields: Any) -> None:
        self.events.append(
            Event(
                id=len(self.events) + 1,
                sentence=text,
                sentence_index=index,
                line=line,
                parser=PARSER,
                **fields,
            )
        )


def _build(item: Item) -> BeliefGraph:
    return BeliefGraph(read_plot(item.story, item.meta), perception=_PERCEPTION)


def _text_build(item: Item) -> BeliefGraph:
    """Text mode: the story's prose (``narrative``) read by the run's parser, not the plot."""
    narrative = item.meta.get("narrative")
    if not isinstance(narrative, str) or not narrative.strip():
        raise DataFormatError(f"story {item.meta.get('story_id')!r} has no narrative to read")
    return track(narrative, perception=_PERCEPTION, strict=False)


# -- questions ---------------------------------------------------------------------------------
_P = r"^From (?P<a>.+?)'s perspective, "
_END = r" by the end of the story\?$"
_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "narrator",
        re.compile(
            r"^From narrator's perspective, where is (?:the )?(?P<o>.+?) "
            r"located (?P<when>by the end|in the beginning) of the story\?$"
        ),
    ),
    (
        "coarse",
        re.compile(
            _P + r"(?:does (?P<b>.+?) think that )?(?:is )?the (?P<o>.+?) "
            r"(?:is )?in its initial location" + _END
        ),
    ),
    (
        "fine",
        re.compile(
            _P + r"where (?:is the (?P<o1>.+?) located precisely|precisely does "
            r"(?P<b>.+?) think that the (?P<o>.+?) is located)" + _END
        ),
    ),
    (
        "fullness",
        re.compile(
            _P + r"how does (?:(?P<b>\S+) think )?(?P<c>.+)'s fullness "
            r"(?:would )?change" + _END
        ),
    ),
    (
        "accessibility",
        re.compile(
            _P + r"how would (?P<o>.+?)'s accessibility change"
            r"(?: for (?P<x>.+?))?" + _END
        ),
    ),
    (
        "attitude",
        re.compile(
            r"^As (?P<a>.+?), what is your attitude towards (?P<m>.+?)'s "
            r"action of moving (?P<o>.+?) from (?P<c0>.+) to (?P<c1>.+)\?$"
        ),
    ),
)

Kind = Literal["narrator", "coarse", "fine", "fullness", "accessibility", "attitude"]


@dataclass(frozen=True)
class _Question:
    kind: Kind
    chain: tuple[str, ...]
    target: str
    """The object (location, accessibility, attitude) or the container (fullness)."""
    at_start: bool = False
    """Narrator questions about the beginning of the story."""
    for_whom: str | None = None
    """Accessibility "for X" (default: the holder)."""
    mover: str | None = None
    """Attitude: whose action the question asks about."""


def _read_question(question: str) -> _Question:
    q = re.sub(r"\s+", " ", question.strip())
    for kind, pattern in _FORMS:
        if m := pattern.match(q):
            g = m.groupdict()
            if kind == "narrator":
                return _Question("narrator", (), g["o"], at_start=g["when"] != "by the end")
            if kind == "attitude":
                return _Question("attitude", (g["a"],), g["o"], mover=g["m"])
            chain = (g["a"], g["b"]) if g.get("b") else (g["a"],)
            if kind == "fine":
                return _Question("fine", chain, g["o"] or g["o1"])
            if kind == "fullness":
                return _Question("fullness", chain, g["c"])
            if kind == "accessibility":
                return _Question("accessibility", chain, g["o"], for_whom=g.get("x"))
            return _Question(kind, chain, g["o"])  # type: ignore[arg-type]
    raise UnsupportedQuestionError(
        f"unsupported OpenToM question {question!r}: expected a location (coarse or fine), "
        "fullness, accessibility or attitude question in the release's wording"
    )


@dataclass(frozen=True)
class _Answer:
    value: str | None
    explanation: tuple[str, ...]


class _Context:
    """What answering one item needs: the graph, the item's names, the object's history."""

    def __init__(self, item: Item, graph: BeliefGraph, *, text: bool = False) -> None:
        self.item = item
        self.graph = graph
        self.text = text
        """Text mode: the graph names things in the narrative's words, not the plot's."""
        info = item.meta.get("plot_info") or {}
        self.mover: str = info.get("mover", "")
        self.observer: str = info.get("observer", "")
        self.original: str = info.get("original_place", "")
        self.new: str = info.get("move_to_place", "")

    def actor(self, name: str) -> str:
        for a in self.graph.actors:
            if a.lower() == name.strip().lower():
                return a
        raise UnsupportedQuestionError(
            f"{name!r} in {self.item.question!r} is not a character of the plot; "
            f"characters: {list(self.graph.actors)}"
        )

    def entity(self, name: str, kinds: tuple[str, ...]) -> str:
        wanted = normalise(name)
        candidates = [e for e in self.graph.story.entities if e.kind in kinds]
        for e in candidates:
            if normalise(e.name) == wanted or e.name.lower() == name.lower():
                return e.name
        # A narrative names things in its own words ("the glass bottle" for the release's
        # "bottle"): the one thing whose words include the question's, or are included in
        # them, with the same head noun.
        words = wanted.replace("_", " ").split()
        near = [e.name for e in candidates
                if self.text and (theirs := normalise(e.name).replace("_", " ").split()) and words
                and theirs[-1] == words[-1]
                and (set(words) <= set(theirs) or set(theirs) <= set(words))]  # fmt: skip
        if len(near) == 1:
            return near[0]
        raise UnsupportedQuestionError(
            f"the {name!r} in {self.item.question!r} is not in the plot; known: "
            f"{[e.name for e in self.graph.story.entities if e.kind in kinds]}"
        )

    def place_class(self, value: str | None) -> str:
        if value is None:
            return UNANSWERED
        if normalise(value) == normalise(self.original):
            return "initial"
        if normalise(value) == normalise(self.new):
            return "new"
        return "other"


def _places(graph: BeliefGraph, chain: tuple[str, ...], obj: str) -> tuple[Belief, Belief] | None:
    """The chain's first belief about where ``obj`` is and the one it holds at the end (a
    belief about its container's place when the chain believes the container moved later),
    or None when it holds none.

    A narrative places a thing either way, "the hat is in the box" or "the box contains the
    hat" (two variables of the graph), so both count, and the latest formed wins; and a
    thing goes where its container is carried ("he carried the bottle outside": the melon in
    it is outside too).
    """
    found = list(graph.timeline_of(chain, variable=(obj, "in")))
    for var in graph.variables:
        if len(var) == 2 and var[1] == "contains" and var[0] != obj:
            found += [b for b in graph.timeline_of(chain, variable=var)
                      if normalise(str(b.proposition.value or "")) == normalise(obj)]  # fmt: skip
    if not found:
        return None
    found.sort(key=lambda b: b.start)
    held = [b for b in found if b.holds_at(graph.end)] or found
    end = held[-1]
    where = _place_of(end)
    # Seen to be gone from there ("the hat is no longer in the container"), with no new
    # place: the chain believes it is elsewhere.
    gone = [b for b in graph.timeline_of(chain, variable=(obj, "in", where))
            if b.proposition.negated and b.start > end.start and b.holds_at(graph.end)]  # fmt: skip
    if gone and end.proposition.relation == "in":
        return found[0], gone[-1]
    if where != obj:
        # only where the chain believes the container was carried (a move of it, to a
        # place other than where the chain had it), not a later look that says where it
        # stands ("the basket is on the counter")
        carried = {e.id for e in graph.events
                   if e.kind == "move" and e.obj is not None
                   and normalise(e.obj) == normalise(where)}  # fmt: skip
        before = graph.belief(chain, variable=(where, "in"), at=end.start)
        had = None if before is None else before.proposition.assigned
        later = [b for b in graph.timeline_of(chain, variable=(where, "in"))
                 if b.start > end.start and b.holds_at(graph.end)
                 and carried & set(b.provenance)
                 and b.proposition.assigned != had]  # fmt: skip
        if later:
            end = later[-1]
    return found[0], end


def _place_of(b: Belief) -> str:
    """Where a belief from ``_places`` puts its thing: the value of "in", the subject of
    "contains" (the container)."""
    p = b.proposition
    if p.negated:
        return ELSEWHERE
    return p.subject if p.relation == "contains" else str(p.value)


ELSEWHERE = "elsewhere"
"""Where a chain believes a thing is once it saw it gone and learnt no new place."""


def _location_history(graph: BeliefGraph, chain: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """Object -> (where the chain first believed it was, where it believes it is at the end)."""
    out: dict[str, tuple[str, str]] = {}
    things = {v[0] for v in graph.variables if len(v) == 2 and v[1] == "in"}
    things |= {str(e.proposition.value) for e in graph.story.events
               if e.proposition is not None and e.proposition.relation == "contains"
               and e.proposition.value}  # fmt: skip
    for obj in sorted(things):
        places = _places(graph, chain, obj)
        if places is not None:
            out[obj] = (_place_of(places[0]), _place_of(places[1]))
    return out


def _view(graph: BeliefGraph, chain: tuple[str, ...]) -> BeliefGraph:
    """The graph to read ``chain`` from: for a second-order chain (A, B), the perception of B
    as A takes it to be, where the story says A is wrong about it ("Unbeknownst to A, B
    witnessed the move": A thinks B still believes the old place; ``as_modelled_by``)."""
    return as_modelled_by(graph, chain[0], chain[1]) if len(chain) == 2 else graph


def _slips(seen: BeliefGraph, graph: BeliefGraph, chain: tuple[str, ...]) -> tuple[str, ...]:
    """What ``_view`` changed, in words (nothing when it changed nothing)."""
    if seen is graph:
        return ()
    return tuple(f"The story says {chain[0]} does not know what {chain[1]} perceived "
                 f"({e.cite()}), so {chain[0]} takes {chain[1]} to have "
                 f"{'missed' if s.kind == 'witnessed' else 'seen'} events {list(s.events)}."
                 for s in perception_slips(graph, chain[0], chain[1])
                 for e in graph.events if e.id == s.fact)  # fmt: skip


def _who(chain: tuple[str, ...]) -> str:
    return " thinks ".join(chain)


def _location(ctx: _Context, q: _Question) -> _Answer:
    graph = ctx.graph
    chain = tuple(ctx.actor(a) for a in q.chain)
    obj = ctx.entity(q.target, ("object",))
    world = _places(graph, (), obj)
    if q.kind == "narrator":
        if world is None:
            return _Answer(None, (f"The plot never places the {obj}.",))
        value = _place_of(world[0] if q.at_start else world[1])
        when = "at the start" if q.at_start else "at the end"
        return _Answer(value, (f"In the plot the {obj} is in {_np(value)} {when}.",))
    seen = _view(graph, chain)
    places = _places(seen, chain, obj)
    if places is None:
        return _Answer(None, (f"{_who(chain)} nothing about the {obj}.",))
    b = places[1]
    value = _place_of(b)
    lines = (*_slips(seen, graph, chain), *explain(seen, b))
    if q.kind == "fine":
        return _Answer(value, lines)
    if world is None:
        return _Answer(None, (*lines, f"The story never places the {obj} itself."))
    initial = _place_of(world[0])
    if value == initial:
        return _Answer("Yes", (*lines, f"Its initial location is {_np(str(initial))}, so: Yes."))
    # A narrative may word one place two ways ("the shoes are on the shelves", "the cupboard
    # holds the shoes"): a belief the chain already held before the thing (or what carries
    # it) was first moved is a belief in its initial place, however it is worded.
    moves = [e.id for e in moves_of(graph, obj)]
    if (
        ctx.text
        and moves
        and any(
            x.start < moves[0] and x.proposition.assigned == b.proposition.assigned
            for x in seen.timeline_of(chain, variable=b.proposition.variable)
        )
    ):
        return _Answer("Yes", (*lines, f"That belief was held before the {obj} was first "
                                       f"moved (event {moves[0]}), so: Yes."))  # fmt: skip
    return _Answer("No", (*lines, f"Its initial location is {_np(str(initial))}, so: No."))


def _fullness(ctx: _Context, q: _Question) -> _Answer:
    chain = tuple(ctx.actor(a) for a in q.chain)
    container = ctx.entity(q.target, ("container",))
    history = _location_history(_view(ctx.graph, chain), chain)
    before = sorted(o for o, (first, _) in history.items() if first == container)
    after = sorted(o for o, (_, last) in history.items() if last == container)
    value = _compare(len(after), len(before), "full")
    lines = (
        f"{_who(chain)} first believed {_np(container)} held {_things(before)} and believes it "
        f"holds {_things(after)} at the end, so it is {value}.",
    )
    return _Answer(value, lines)


def _compare(after: int, before: int, what: str) -> str:
    if after > before:
        return f"more {what}"
    if after < before:
        return f"less {what}"
    return f"equally {what}"


def _things(objs: list[str]) -> str:
    return " and ".join(_np(o) for o in objs) if objs else "nothing"


def _np(name: str) -> str:
    """ "the box", but "the trash can", "a donation box", "Landon's own closet" as they are."""
    if re.match(r"^(?:the|a|an|another)\b", name, re.I) or name[:1].isupper() or "'s " in name:
        return name
    return f"the {name}"


# -- what meta_data says about the mover's aim ----------------------------------------------------
Aim = Literal["discard", "display", "keep"]


def _aim(meta: dict[str, Any]) -> Aim | None:
    """The mover's aim, from personality and sentiment (None when they do not settle it)."""
    personality = str(meta.get("personality", "")).lower()
    sentiment = f"{meta.get('sentiment_statement', '')} {meta.get('true_sentiment', '')}".lower()
    if "get rid" in sentiment or "adversarial" in sentiment:
        return "discard"
    if "show-off" in sentiment or "show off" in sentiment:
        return "display"
    if " inconsiderate " in f" {personality} ":
        if "most negative" in sentiment:
            return "discard"
        if "most positive" in sentiment:
            return "keep"
    return None


def _owner(container: str, actors: tuple[str, ...]) -> str | None:
    for a in actors:
        if re.match(rf"^(?:the )?{re.escape(a)}'s\b", container, re.I):
            return a
    return None


def _accessibility(ctx: _Context, q: _Question) -> _Answer:
    holder = ctx.actor(q.chain[0])
    whom = ctx.actor(q.for_whom) if q.for_whom else holder
    obj = ctx.entity(q.target, ("object",))
    first, last = _location_history(ctx.graph, (holder,)).get(obj, (None, None))
    if first is None:
        return _Answer(None, (f"{holder} has no belief about the {obj}.",))
    if first == last:
        lines = (f"{holder} believes the {obj} is still in {_np(first)}, so nothing changed.",)
        return _Answer("equally accessible", lines)
    owner = _owner(last or "", ctx.graph.actors)
    moved = f"{holder} believes the {obj} moved from {_np(first)} to {_np(last or '')}."
    if ctx.text:
        return _Answer(*_accessible_by_aim(ctx, obj, whom, owner, last or "", moved))
    aim = _aim(ctx.item.meta)
    if owner is not None:
        value = "more accessible" if owner == whom else "less accessible"
        why = f"{_np(last or '')} is {owner}'s, so it is {value} for {whom}."
    elif aim == "discard":
        value = "less accessible"
        why = f"meta_data says {ctx.mover} wanted to get rid of it, so it is {value}."
    elif aim == "display":
        value = "more accessible"
        why = f"meta_data says {ctx.mover} wanted to show it off, so it is {value}."
    elif aim == "keep":
        value = "more accessible" if whom == ctx.mover else "less accessible"
        why = f"meta_data says {ctx.mover} kept it for themself, so it is {value} for {whom}."
    else:
        return _Answer(
            None,
            (
                moved,
                f"meta_data does not say which way {ctx.mover}'s aim changes its accessibility.",
            ),
        )
    return _Answer(value, (moved, why))


def _graph_aim(ctx: _Context, obj: str, mover: str | None = None) -> tuple[str | None, str, str]:
    """Text mode: the mover's aim read from the narrative's graph (``aim_of``), never from
    ``meta_data``: (aim as ``_aim`` names it, the mover, why). The mover is the one the
    question names, else whoever the graph has moving the thing last."""
    if mover is None:
        movers = [e.agent for e in moves_of(ctx.graph, obj) if e.agent]
        mover = movers[-1] if movers else None
    if mover is None:
        # The parse lost the move ("moved towards the trash can"): the one character whose
        # stated intention about the thing has an aim.
        aims = {a: r for a in ctx.graph.actors if (r := aim_of(ctx.graph, a, obj)).value}
        if len(aims) != 1:
            return None, "", f"the graph has no one move the {obj}"
        mover = next(iter(aims))
    read = aim_of(ctx.graph, mover, obj)
    aim = {"less": "discard", "more": "display", "keep": "keep"}.get(str(read.value))
    if aim is not None:
        return aim, mover, f"{mover}'s aim: {read.because[0]}"
    # No stated intention: the mover's own attitude to the thing, as the graph holds it, is
    # the motive (one moves a thing one dislikes away, and keeps one one likes).
    own = attitude_of(ctx.graph, mover, obj)
    if own.value == "hate":
        return "discard", mover, (f"no stated intention, but {own.because[0]}: "
                                  f"{mover} moved it away")  # fmt: skip
    if own.value == "like":
        return "keep", mover, f"no stated intention, but {own.because[0]}: {mover} kept it"
    return None, mover, f"no stated intention or attitude of {mover}'s says why the {obj} moved"


def _accessible_by_aim(
    ctx: _Context, obj: str, whom: str, owner: str | None, last: str, moved: str
) -> tuple[str | None, tuple[str, ...]]:
    """Text mode accessibility: the destination's owner, else the mover's aim as the graph
    holds it (getting rid of it or hiding it: less; showing it or bringing it in reach: more;
    keeping it: more for the mover, less for others)."""
    if owner is not None:
        value = "more accessible" if owner == whom else "less accessible"
        return value, (moved, f"{_np(last)} is {owner}'s, so it is {value} for {whom}.")
    aim, mover, why = _graph_aim(ctx, obj)
    if aim is None:
        return None, (moved, f"{why}: which way its accessibility changes is not settled.")
    if aim == "keep":
        value = "more accessible" if whom == mover else "less accessible"
    else:
        value = "less accessible" if aim == "discard" else "more accessible"
    return value, (moved, f"{why}, so it is {value} for {whom}.")


def _attitude(ctx: _Context, q: _Question) -> _Answer:
    who = ctx.actor(q.chain[0])
    obj = ctx.entity(q.target, ("object",))
    if ctx.text:
        return _attitude_by_aim(ctx, q, who, obj)
    # The preference however the parse worded it (a template's "likes", a narrative's
    # "despised", "adored"); the latest one the holder formed wins.
    held = attitude_of(ctx.graph, who, obj).value
    likes, hates = held == "like", held == "hate"
    aim = _aim(ctx.item.meta)
    owner = _owner(ctx.new, ctx.graph.actors)
    if aim is None and owner is not None and owner == ctx.mover:
        aim = "keep"
    if likes == hates or aim not in ("discard", "keep"):
        pref = "likes" if likes else "hates" if hates else "has no stated preference for"
        return _Answer(
            None,
            (
                f"{who} {pref} the {obj}; the mover's aim ({aim or 'not settled by meta_data'}) "
                "does not determine an attitude.",
            ),
        )
    if aim == "discard":
        value = "negative" if likes else "positive"
        why = f"{ctx.mover} got rid of the {obj}, which {who} {'likes' if likes else 'hates'}"
    else:
        value = "negative" if likes else "neutral"
        why = f"{ctx.mover} kept the {obj} for themself; {who} {'likes' if likes else 'hates'} it"
    return _Answer(value, (f"{why}, so {who}'s attitude is {value}.",))


def _attitude_by_aim(ctx: _Context, q: _Question, who: str, obj: str) -> _Answer:
    """Text mode attitude: the observer's preference and the mover's aim, both read from the
    narrative's graph. An act that takes a liked thing out of reach, or keeps it, is
    negative, one that brings it in reach positive; for a disliked thing, taking it away is
    positive, bringing it in reach negative, and keeping it neutral."""
    held = attitude_of(ctx.graph, who, obj)
    mover = ctx.actor(q.mover) if q.mover else None
    aim, _, why = _graph_aim(ctx, obj, mover)
    if held.value not in ("like", "hate") or aim is None:
        pref = f"{who} {held.value}s the {obj}" if held.value else (
            f"the graph holds no preference of {who}'s for the {obj}")  # fmt: skip
        return _Answer(None, (f"{pref}; {why}: no attitude follows.",))
    likes = held.value == "like"
    table = {("discard", True): "negative", ("discard", False): "positive",
             ("display", True): "positive", ("display", False): "negative",
             ("keep", True): "negative", ("keep", False): "neutral"}  # fmt: skip
    value = table[(aim, likes)]
    return _Answer(value, (*held.because, f"{why}, so {who}'s attitude is {value}."))


_ANSWERERS: dict[str, Callable[[_Context, _Question], _Answer]] = {
    "narrator": _location,
    "coarse": _location,
    "fine": _location,
    "fullness": _fullness,
    "accessibility": _accessibility,
    "attitude": _attitude,
}


def _asked(ctx: _Context, item: Item) -> tuple[_Question | None, _Answer]:
    """The question read and the graph's answer to it (an unsupported form says why)."""
    q: _Question | None = None
    try:
        q = _read_question(item.question)
        return q, _ANSWERERS[q.kind](ctx, q)
    except UnsupportedQuestionError as err:
        return q, _Answer(None, (str(err),))


def _answer(item: Item, graph: BeliefGraph) -> ItemResult:
    ctx = _Context(item, graph)
    q, a = _asked(ctx, item)
    return _result(ctx, q, a, classify=True)


def _text_answer(item: Item, graph: BeliefGraph) -> ItemResult:
    """Text mode: the graph's answer, a place read as the release's evaluator reads any
    answer (``read_paper_reply``): the narrative names places in its own words ("the small
    outdoor shed"), the gold in the plot's ("the outdoor shed"), and the direct baseline's
    replies are read the same way."""
    ctx = _Context(item, graph, text=True)
    q, a = _asked(ctx, item)
    if q is not None and q.kind in ("fine", "narrator") and a.value is not None:
        read = read_paper_reply(item, a.value)
        how = "neither place" if read is None else read
        a = _Answer(read, (*a.explanation, f"{a.value!r} read as the evaluator reads it: {how}."))
    return _result(ctx, q, a, classify=True)


def _result(ctx: _Context, q: _Question | None, a: _Answer, *, classify: bool) -> ItemResult:
    """The scored result of answer ``a`` (``classify``: name how a wrong label departs from
    the plot, which needs the graph)."""
    item = ctx.item
    correct = a.value is not None and normalise(a.value) == normalise(item.answer)
    label = "supported" if correct else ("unanswered" if a.value is None else "contradicted")
    disagreement = None
    if classify and q is not None and a.value is not None and not correct:
        disagreement = _classify(ctx, q, a)
    places = q is not None and q.kind in ("fine", "narrator")
    return ItemResult(
        id=item.id,
        gold=item.answer,
        prediction=a.value,
        correct=correct,
        explanation=a.explanation,
        breakdown={
            "question_type": str(item.meta.get("question_type", "unknown")),
            "attribute": _ATTRIBUTE[q.kind] if q else "unknown",
            "role": _role(ctx, q) if q else "unknown",
            "witnessed": "observed" if item.meta.get("observed") else "not observed",
            # Fine locations are scored as the initial or the new place, as in the paper.
            "gold_class": ctx.place_class(item.answer) if places else item.answer,
            "predicted_class": (ctx.place_class(a.value) if places else (a.value or UNANSWERED)),
            "label": label,
        },
        supported=correct if a.value is not None else None,
        disagreement=disagreement,
    )


_ATTRIBUTE = {
    "narrator": "location",
    "coarse": "location",
    "fine": "location",
    "fullness": "fullness",
    "accessibility": "accessibility",
    "attitude": "attitude",
}


def _role(ctx: _Context, q: _Question) -> str:
    if not q.chain:
        return "narrator"
    first = q.chain[0].lower()
    return {ctx.mover.lower(): "mover", ctx.observer.lower(): "observer"}.get(first, "other")


# -- classifying labels the plot contradicts ------------------------------------------------------
_LITERAL = "label follows the plot as written, not the release's observed / plot_info"
_COVERT = "second order: a witnessed move treated as covert (mover unaware the observer saw)"
_OWN = "second order labelled with the asker's own belief"
_INNER = "second order labelled with the inner character's actual belief"
_SO_OTHER = "second order: other"
_UNSEEN_CREDITED = "first order: label credits the holder with a move they did not witness"
_SEEN_IGNORED = "first order: label ignores a move the holder witnessed"
_OWN_MOVE_IGNORED = "first order: label ignores the holder's own move"
_OPPOSITE = "multihop: label has the opposite direction"
_ACC_UNSEEN = "accessibility: label changes although the holder did not see the move"
_ACC_SEEN = "accessibility: label unchanged although the holder saw the move"
_ACC_DIRECTION = "accessibility: direction differs from the meta_data aim"
_ATTITUDE = "attitude: differs from the preference rule"
_OTHER = "other"

DISAGREEMENTS = (
    _LITERAL,
    _COVERT,
    _OWN,
    _INNER,
    _SO_OTHER,
    _UNSEEN_CREDITED,
    _SEEN_IGNORED,
    _OWN_MOVE_IGNORED,
    _OPPOSITE,
    _ACC_UNSEEN,
    _ACC_SEEN,
    _ACC_DIRECTION,
    _ATTITUDE,
    _OTHER,
)
"""The classes ``ItemResult.disagreement`` takes, checked in this order (first match wins)."""


def _classify(ctx: _Context, q: _Question, a: _Answer) -> str:
    """Name the way a label departs from the plot (for the noise report).

    Each class is a reading of the plot under which the label would be right: the asker's
    own or the inner character's belief in place of the second-order one, a witnessed move
    the mover does not know was seen (covert), the plot read literally (without the repairs
    from meta_data), a move the holder saw treated as unseen or one they missed as seen.
    """
    gold = normalise(ctx.item.answer)

    def gives_gold(value: str | None) -> bool:
        return value is not None and normalise(value) == gold

    repaired = bool(ctx.item.meta.get("plot_repairs"))
    if repaired and len(q.chain) != 2 and gives_gold(_as_written(ctx, q)):
        return _LITERAL
    if q.kind == "accessibility":
        if a.value == "equally accessible":
            return _ACC_UNSEEN
        return _ACC_SEEN if gold == "equally accessible" else _ACC_DIRECTION
    if q.kind == "attitude":
        return _ATTITUDE
    if len(q.chain) == 2:
        if gives_gold(_alternative(ctx, q, q.chain[:1])):
            return _OWN
        if gives_gold(_alternative(ctx, q, q.chain[1:])):
            return _INNER
        mover_asks = ctx.actor(q.chain[0]) == ctx.mover
        if mover_asks and gives_gold(_alternative(ctx, q, q.chain, unseen=True)):
            return _COVERT
        if repaired and gives_gold(_as_written(ctx, q)):
            return _LITERAL
        return _direction(a.value, ctx.item.answer) or _SO_OTHER
    if gives_gold(_alternative(ctx, q, q.chain, seen=True)):
        return _UNSEEN_CREDITED
    if gives_gold(_alternative(ctx, q, q.chain, unseen=True)):
        return _SEEN_IGNORED
    if q.chain and gives_gold(_alternative(ctx, q, q.chain, unmoved=True)):
        return _OWN_MOVE_IGNORED
    return _direction(a.value, ctx.item.answer) or _OTHER


def _direction(value: str | None, gold: str) -> str | None:
    """For "more / less X" labels: the label has the direction opposite to the answer."""
    pair = {value, gold}
    if pair in ({"more full", "less full"}, {"more accessible", "less accessible"}):
        return _OPPOSITE
    return None


def _alternative(
    ctx: _Context,
    q: _Question,
    chain: tuple[str, ...],
    *,
    seen: bool = False,
    unseen: bool = False,
    unmoved: bool = False,
) -> str | None:
    """The answer had ``chain`` been asked, had its members all seen / all missed the move
    ("missed" keeps the mover a perceiver of their own move), or had nobody moved anything.
    """
    story = ctx.graph.story
    if unmoved:
        kept = tuple(e for e in story.events if e.kind != "move")
        story = story.model_copy(
            update={
                "events": tuple(e.model_copy(update={"id": i}) for i, e in enumerate(kept, start=1))
            }
        )
    elif seen or unseen:
        members = {ctx.actor(a) for a in chain}
        events = []
        for e in story.events:
            if e.kind == "move":
                who = set(e.perceivers or ())
                who = who | members if seen else who - (members - {e.agent})
                e = e.model_copy(update={"perceivers": tuple(sorted(who))})
            events.append(e)
        story = story.model_copy(update={"events": tuple(events)})
    return _answer_with(ctx, story, q, chain)


def _as_written(ctx: _Context, q: _Question) -> str | None:
    """The answer from the plot read literally, without the repairs from meta_data."""
    meta = {k: v for k, v in ctx.item.meta.items() if k not in ("observed", "plot_info")}
    return _answer_with(ctx, read_plot(ctx.item.story, meta), q, q.chain)


def _answer_with(
    ctx: _Context, story: ParsedStory, q: _Question, chain: tuple[str, ...]
) -> str | None:
    graph = BeliefGraph(story, perception=ctx.graph.perception, trust=ctx.graph.trust)
    try:
        alt = _ANSWERERS[q.kind](
            _Context(ctx.item, graph), _Question(q.kind, chain, q.target, q.at_start, q.for_whom)
        )
    except UnsupportedQuestionError:
        return None
    return alt.value


# -- registration --------------------------------------------------------------------------------
def _answered(**where: str) -> Callable[[list[ItemResult]], float]:
    def metric(results: list[ItemResult]) -> float:
        chosen = [r for r in results if all(r.breakdown.get(k) == v for k, v in where.items())]
        return sum(r.prediction is not None for r in chosen) / len(chosen) if chosen else 0.0

    return metric


# The paper's evaluator (``opentom_evaluator.py``) reads a multihop answer into an integer
# class per attribute and pools fullness and accessibility into one macro-F1, so "less full"
# and "more accessible" are one class (1), "more full" and "less accessible" another (2), the
# "equally" answers the third (3). A prediction it cannot read is "corrupted" and left out.
_LESS_FULL, _MORE_FULL = ("less full", "emptier", "more empty"), ("more full", "fuller")


def multihop_class(answer: str | None, attribute: str, *, gold: bool = False) -> str | None:
    """The paper evaluator's class ("1", "2", "3") of a multihop answer, None when unreadable.

    Gold accessibility answers other than "more/less accessible" are class 3, as the
    evaluator reads them.

    >>> multihop_class("Less full.", "fullness"), multihop_class("more accessible", "accessibility")
    ('1', '1')
    >>> multihop_class("no idea", "fullness"), multihop_class("x|y", "accessibility", gold=True)
    (None, '3')
    """
    if answer is None:
        return None
    text = answer.replace(".", "").lower()
    if attribute == "fullness":
        if any(a in text for a in _LESS_FULL):
            return "1"
        if any(a in text for a in _MORE_FULL):
            return "2"
        return "3" if "equally full" in text else None
    for cls, phrase in (("1", "more accessible"), ("2", "less accessible")):
        if phrase in text:
            return cls
    return "3" if gold or "equally accessible" in text else None


def _pooled_macro_f1(question_type: str) -> Callable[[list[ItemResult]], float]:
    """The paper's multihop macro-F1: both attributes pooled into its three classes."""

    def metric(results: list[ItemResult]) -> float:
        gold: list[str] = []
        pred: list[str | None] = []
        for r in results:
            attribute = r.breakdown.get("attribute")
            if r.breakdown.get("question_type") != question_type or attribute not in (
                "fullness",
                "accessibility",
            ):
                continue
            g = multihop_class(r.gold, attribute, gold=True)
            p = multihop_class(r.prediction, attribute)
            if g is not None and p is not None:  # corrupted generations are left out
                gold.append(g)
                pred.append(p)
        return macro_f1(gold, pred)

    return metric


_SAMPLED_FILES = ("location_cg_fo", "location_cg_so", "multihop_fo", "multihop_so", "attitude")
"""The question files of the paper's (coarse) run, in the order its sampler visits them."""


def paper_batches(
    folder: Path, *, seed: int = 42, batches: int = 5, batch_size: int = 50
) -> list[set[str]]:
    """The item ids of the paper's sampled run (``run_baseline.py``), one set per batch.

    The release's runner seeds Python's and NumPy's generators with 42, shuffles the keys of
    ``meta_data.json`` and takes ``batches`` batches of ``batch_size`` stories; for each story,
    in that order, it visits the question files and, in the two multihop files, drops two of
    the story's four fullness questions (``np.random.choice(..., 2, replace=False)``). This
    reproduces that draw, assuming nothing else draws from the generators in between (true
    for its API backends). Ids are the loader's (``<file stem>:<story id>:<index>``).

    Raises
    ------
    DataFormatError
        For a missing or malformed ``meta_data.json`` or question file.
    """
    import random

    import numpy as np

    meta = _read_json(folder / "meta_data.json")
    files = {name: _read_json(folder / f"{name}.json") for name in _SAMPLED_FILES}
    keys = list(meta)
    random.Random(seed).shuffle(keys)
    draws = np.random.RandomState(seed)
    out: list[set[str]] = []
    for b in range(batches):
        chosen: set[str] = set()
        for key in keys[b * batch_size : (b + 1) * batch_size]:
            for name in _SAMPLED_FILES:
                questions = files[name].get(key, [])
                dropped: set[int] = set()
                if name.startswith("multihop"):
                    fullness = [i for i, q in enumerate(questions) if "fullness" in q["question"]]
                    dropped = {int(i) for i in draws.choice(fullness, 2, replace=False)}
                chosen |= {f"{name}:{key}:{i}" for i in range(len(questions)) if i not in dropped}
        out.append(chosen)
    return out


def paper_protocol(results: list[ItemResult], folder: Path) -> dict[str, float]:
    """The paper's figures: per question type, the mean over its 5 sampled batches of the
    batch's macro-F1 (multihop pooled as ``macro_f1/multihop_*``) and accuracy.

    ``results`` must include the coarse location, multihop and attitude files' items (others
    are ignored); a type with no item in a batch leaves that batch out of its mean.
    """
    metrics = _metrics()
    sums: dict[str, list[float]] = {}
    for batch in paper_batches(folder):
        chosen = [r for r in results if r.id in batch]
        for t in QUESTION_TYPES:
            if not t.startswith("location_fine") and any(
                r.breakdown.get("question_type") == t for r in chosen
            ):
                of_t = [r for r in chosen if r.breakdown.get("question_type") == t]
                sums.setdefault(f"macro_f1/{t}", []).append(metrics[f"macro_f1/{t}"](chosen))
                sums.setdefault(f"accuracy/{t}", []).append(
                    sum(r.correct for r in of_t) / len(of_t)
                )
    return {k: sum(v) / len(v) for k, v in sorted(sums.items())}


def _metrics() -> dict[str, Callable[[list[ItemResult]], float]]:
    """Macro-F1 per question type (over answered items, as the paper's evaluator; multihop
    pooled into its three classes) and, for the multihop questions, per attribute; ours
    (``ours/macro_f1_six_classes/...``: the six multihop answers as classes); the share
    answered where the adapter may abstain."""
    out: dict[str, Callable[[list[ItemResult]], float]] = {
        f"macro_f1/{t}": macro_f1_of(question_type=t) for t in QUESTION_TYPES
    }
    for t in ("multihop_fo", "multihop_so"):
        out[f"macro_f1/{t}"] = _pooled_macro_f1(t)
        out[f"ours/macro_f1_six_classes/{t}"] = macro_f1_of(question_type=t)
        for attribute in ("fullness", "accessibility"):
            where = {"question_type": t, "attribute": attribute}
            out[f"macro_f1/{t}/{attribute}"] = macro_f1_of(**where)
            out[f"answered/{t}/{attribute}"] = _answered(**where)
    out["answered/attitude"] = _answered(question_type="attitude")
    return out


# -- the same model, directly: the paper's prompts ------------------------------------------------
PAPER_SYSTEM = "You are an expert in modeling other's mental state."
"""The system message the release's runner (``run_baseline.py``) sends its chat models."""

_READ = "Read and comprehend the following short story. Then, answer the question that follows."
PAPER_TEMPLATES = {
    "location_cg": _READ + '\n\n{narrative}\n\nQuestion: {question} Answer the question with "Yes" '
    'or "No". Do not give any explanation.\n',
    "multihop": _READ + "\n\n{narrative}\n\nQuestion: {question} Answer the question without any "
    "explanation.\n",
    "attitude": _READ + "\n\n{narrative}\n\nQuestion: {question}\n",
}
"""The release's ``src/prompts/chatgpt_opentom_prompts/`` templates (CC BY-NC 4.0):
``chatgpt_location_cg.txt``, ``chatgpt_multihop_accessibility.txt`` and
``chatgpt_attitude.txt``. The fine-location and fullness templates the runner loads
(``chatgpt_location_fg.txt``, ``chatgpt_multihop_fullness.txt``) are not in the released
repository; those questions use the accessibility template, the released one that asks for
an answer "without any explanation"."""


def paper_prompt(item: Item) -> str:
    """The user message the release's ``build_prompt`` writes for a question (no CoT), with
    the story's ``narrative``. Placeholders are filled in one pass, so text in the narrative
    is never read as a placeholder.

    >>> meta = {"narrative": "Ann put the {question} ball in the box."}
    >>> item = Item(id="x", story="", question="From Ann's perspective, is the ball in its "
    ...             "initial location by the end of the story?", answer="Yes", meta=meta)
    >>> print(paper_prompt(item))  # doctest: +NORMALIZE_WHITESPACE
    Read and comprehend the following short story. Then, answer the question that follows.
    <BLANKLINE>
    Ann put the {question} ball in the box.
    <BLANKLINE>
    Question: From Ann's perspective, is the ball in its initial location by the end of the
    story? Answer the question with "Yes" or "No". Do not give any explanation.
    """
    question = item.question
    narrative = str(item.meta.get("narrative") or "")
    if "locate" in question:
        template = PAPER_TEMPLATES["multihop"]  # the fine-location template is not released
    elif "initial" in question:
        template = PAPER_TEMPLATES["location_cg"]
    elif "fullness" in question:
        question += ' Answer with "more full", "equally full", or "less full".'
        template = PAPER_TEMPLATES["multihop"]  # the fullness template is not released
    elif "accessibility" in question:
        question += ' Answer with "more accessible", "equally accessible", or "less accessible".'
        template = PAPER_TEMPLATES["multihop"]
    elif "attitude" in question:
        question = question.split("?")[0].strip() + ", assuming that you observed the action?"
        question += ' Answer with "positive", "neutral", or "negative".'
        filled = _fill(PAPER_TEMPLATES["attitude"], narrative, question)
        return filled.strip() + " Answer without any explanation."
    else:
        raise UnsupportedQuestionError(f"the release has no prompt for {item.question!r}")
    return _fill(template, narrative, question).strip()


def _fill(template: str, narrative: str, question: str) -> str:
    values = {"{narrative}": narrative, "{question}": question}
    return re.sub(r"\{narrative\}|\{question\}", lambda m: values[m[0]], template)


def _overlap(prediction: str, place: str) -> float:
    """The release's ``compute_lexical_overlap``: the share of the place's words the
    prediction contains (lower case, ``_`` as a space, ``'s`` dropped)."""
    pred = prediction.lower().replace("_", " ").replace("'s", "").replace(".", "").split()
    words = place.lower().replace("_", " ").replace("'s", "").split()
    return len({w for w in pred if w in words}) / len(words) if words else 0.0


def _no_article(word: str) -> str:
    """The release's ``remove_determinant`` (it strips a leading "a", "an" or "the" even
    inside a word: kept as released, since its scores depend on it)."""
    for det in ("a", "an", "the"):
        if word.startswith(det):
            return word[len(det) :].strip()
    return word


def read_paper_reply(item: Item, reply: str) -> str | None:
    """A reply as the release's evaluator (``opentom_evaluator.py``) reads it, as an answer
    in the gold's vocabulary; None for a reply it counts as corrupted (or a tie of places).

    >>> q = "From Ann's perspective, how would the ball's accessibility change by the end?"
    >>> read_paper_reply(Item(id="x", story="", question=q, answer="x"), "Less accessible.")
    'less accessible'
    """
    q = item.question
    text = reply.strip()
    low = text.lower()
    if "locate" in q:
        info = item.meta.get("plot_info") or {}
        original, new = info.get("original_place", ""), info.get("move_to_place", "")
        first = _overlap(text, _no_article(original.lower()))
        second = _overlap(text, _no_article(new.lower()))
        if first == second:
            return None
        return (original if first > second else new).replace("_", " ")
    if "initial" in q:
        if "no" in low and "yes" not in low:
            return "No"
        if "yes" in low and "no" not in low:
            return "Yes"
        return None
    if "fullness" in q or "accessibility" in q:
        attribute = "fullness" if "fullness" in q else "accessibility"
        cls = multihop_class(text, attribute)
        names = {
            "fullness": ("less full", "more full", "equally full"),
            "accessibility": ("more accessible", "less accessible", "equally accessible"),
        }
        return None if cls is None else names[attribute][int(cls) - 1]
    token = low.split("\n\n")[-1].split(":")[-1].split(".")[0].strip()
    letters = {"a": "positive", "b": "neutral", "c": "negative"}
    if token in letters:
        return letters[token]
    named = [w for w in ("positive", "negative", "neutral") if w in token]
    return named[0] if len(named) == 1 else None


class PaperPrompt:
    """OpenToM's own prompts for the direct baseline (one request per question)."""

    prompt_id = "opentom.paper.v1"

    def story_key(self, item: Item) -> str:
        return item.id

    def run(self, item: Item, ask: Callable[[list[dict[str, str]]], str]) -> str:
        return ask([{"role": "system", "content": PAPER_SYSTEM},
                    {"role": "user", "content": paper_prompt(item)}])  # fmt: skip

    def score(self, item: Item, state: Any) -> ItemResult:
        reply = str(state)
        empty = BeliefGraph(
            ParsedStory(text="", sentences=(), events=(), actors=(), parser="direct")
        )
        ctx = _Context(item, empty)
        try:
            q: _Question | None = _read_question(item.question)
        except UnsupportedQuestionError:
            q = None
        value = read_paper_reply(item, reply)
        read = "the evaluator cannot read it" if value is None else f"read as: {value}"
        return _result(
            ctx, q, _Answer(value, (f"the model replied {reply!r}", read)), classify=False
        )


def _first_stories(n: int | None, every: int | None = None) -> Callable[..., list[Item]]:
    """The loader, keeping the questions of the first ``n`` stories of ``meta_data.json``
    (in its order) and, with ``every``, every ``every``-th question of each story (its 1st,
    then the ``1 + every``-th, ... in the loader's order: question file by name, then the
    file's order): an item-blind sample."""
    if n is None and every is None:
        return load_opentom
    for name, value in (("stories", n), ("every", every)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):  # fmt: skip
            raise ConfigurationError(f"{name} must be a positive number, got {value!r}")

    def load(path: Path, problems: Problems | None = None) -> list[Item]:
        items = load_opentom(path, problems)
        kept = list(items)
        if n is not None:
            folder = path if path.is_dir() else path.parent
            keep = set(list(_read_json(folder / "meta_data.json"))[:n])
            kept = [item for item in kept if item.meta.get("story_id") in keep]
        if every is not None:
            seen: dict[str, int] = {}
            thinned = []
            for item in kept:
                story = str(item.meta.get("story_id"))
                position = seen.get(story, 0)
                seen[story] = position + 1
                if position % every == 0:
                    thinned.append(item)
            kept = thinned
        return LoadedItems(kept, getattr(items, "problems", ()))

    return load


@benchmarks.register("opentom")
def make_opentom(
    mode: Literal["plot", "text"] = "plot",
    *,
    direct: bool = False,
    stories: int | None = None,
    every: int | None = None,
) -> Benchmark:
    """The OpenToM adapter.

    Parameters
    ----------
    mode : {"plot", "text"}
        ``plot`` (default): the graph is the template parse of the released plot (the
        reasoner alone). ``text``: the story's prose (``narrative``) is read by the run's
        parser (``evaluate(..., parser=...)``, offline the rules parser) and the same
        answerer reads that graph (parser + reasoner).
    direct : bool
        The same-model direct baseline: each question asked with the paper's own prompt
        (``paper_prompt``) through the run's LLM client, no graph, the reply read as the
        paper's evaluator reads it and scored by the same scorer (``adapters.direct``).
    stories : int, optional
        Only the questions of the first ``stories`` stories of ``meta_data.json``.
    every : int, optional
        Only every ``every``-th question of each story (its 1st, ``1 + every``-th, ... in
        the loader's order): a smaller item-blind sample for a per-question baseline.

    Raises
    ------
    ConfigurationError
        For another mode or a bad ``stories`` or ``every``.
    """
    if mode not in ("plot", "text"):
        raise ConfigurationError(f"OpenToM modes are 'plot' and 'text', got {mode!r}")
    base = _make_opentom(mode, stories, every)
    if direct:
        from .direct import make_direct

        return make_direct(base, PaperPrompt())
    return base


def _make_opentom(mode: str, stories: int | None, every: int | None = None) -> Benchmark:
    return Benchmark(
        name="opentom",
        load=_first_stories(stories, every),
        build=_text_build if mode == "text" else _build,
        answer=_text_answer if mode == "text" else _answer,
        breakdowns=(
            "question_type",
            "attribute",
            "role",
            "witnessed",
            "gold_class",
            "predicted_class",
            "label",
        ),
        metrics=_metrics(),
        story_key=lambda item: str(item.meta.get("story_id", item.story)),
    )
