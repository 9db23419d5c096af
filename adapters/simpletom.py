"""SimpleToM (Gu et al., 2026): awareness, behavior and judgment from one belief (seed 001).

Release format (Hugging Face ``allenai/SimpleToM``, configs ``mental-state-qa``,
``behavior-qa``, ``judgment-qa``, ``story-data``, split ``test``): QA records ``{id, story,
question, scenario_name, choices: {text, label}, answerKey}`` with ids
``{core_id}_sev{1|2|3}_{aware|action|judge}``; story-data records carry ``entities``
(Person X, Person Y, Object Z), ``key_information`` and ``story_sentence``. ``load_simpletom``
reads local JSONL files (one file, or a folder of them); ``load_simpletom_hf`` loads the
release through ``datasets`` when it is installed and the machine is online.

Reasoning: the story's first sentence is a narrator fact k; the second gives Person X's
access to the thing k is about. Whether that access reveals k, and which default belief X
holds instead (a KFC bag holds KFC food), are typed facts of the parse; the solver decides X's
belief. The three answers are read from that one belief (``applied.read_awareness``):
awareness = whether X believes k; behavior = the option whose precondition (as the parse
types it: needs knowledge of k, or fits ignorance of it) holds in X's beliefs; judgment =
Reasonable exactly when the judged action is the one X's beliefs support and X's ignorance
was not culpable. So the answers of a story cannot contradict each other; the report counts
contradictions anyway and ``assert_consistent`` raises if there is one.

Parses: ``load_simpletom`` attaches the recorded, hand-checked parse of each story from
``parses.jsonl`` beside the data (``ScenarioParse``, keyed by story id ``{core_id}_sev{n}``).
Without one the LLM path reads the story (``LLMScenarioReader``) when a model is configured;
otherwise the item is reported unanswered with the reason. Nothing is guessed.

Controls: every gold answer is on the unaware side, so a constant answerer scores 100%.
``aware_controls`` builds the aware variant of each story (its parse's access sentence, "Mary
opens the bag and looks inside.", is appended) with all three golds flipped; the tests
require every answer to flip. ``simpletom_report`` also checks that severity siblings
(same ``core_id``) get the same answers.

Limits: the judged action is read from the release's judgment template (``Next, X "a" and
not "b".``); a story whose access is ambiguous (annotators' "possibly noticed") is read as
the parse types it.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from beliefgraph.api import track
from beliefgraph.errors import BeliefGraphError, ConfigurationError, DataFormatError
from beliefgraph.graph import BeliefGraph
from beliefgraph.grounding import StoryGrounding
from beliefgraph.grounding.freeform import (
    FreeQuestion,
    co_present,
    evidence_access,
    ground_questions,
    option_needs,
)
from beliefgraph.models import BeliefModel, Proposition
from beliefgraph.reasoning import (
    ActionOption,
    EventSpec,
    RecordedParser,
    judge_action,
    predict_action,
    read_awareness,
)
from beliefgraph.text import segment

from .benchmark import Benchmark, benchmarks
from .choices import normalise
from .item import Item, ItemResult
from .loading import Problems, require_utf8, strict_if_none, text_lines
from .reading import chosen_client, chosen_llm, chosen_llm_settings

__all__ = [
    "QUESTION_TYPES",
    "AccessSentence",
    "InconsistentAnswersError",
    "LLMScenarioReader",
    "ScenarioParse",
    "SimpleToMReport",
    "aware_controls",
    "aware_variant",
    "direct_messages",
    "load_simpletom",
    "load_simpletom_hf",
    "make_simpletom",
    "read_direct",
    "simpletom_report",
    "write_simpletom",
]

QUESTION_TYPES = {"aware": "mental_state", "action": "behavior", "judge": "judgment"}
"""Id suffix -> question type."""
CONFIGS = {"mental_state": "mental-state-qa", "behavior": "behavior-qa", "judgment": "judgment-qa"}
_ID = re.compile(r"^(?P<core>.+)_sev(?P<sev>[123])_(?P<qt>aware|action|judge)$")
_AWARE_Q = re.compile(
    r"^(?:is|are)\s+(?P<x>.+?)\s+likely to be aware that\s+[\"“](?P<k>.+)[\"”]\s*\?\s*$",
    re.I | re.S,
)
_ACTION_Q = re.compile(r"^what will\s+(?P<x>.+?)(?:'s next action)?\s+(?:likely|be)", re.I)
_JUDGE_Q = re.compile(
    r"^next,\s+(?P<x>.+?)\s+[\"“](?P<a>.+)[\"”]\s+and not\s+[\"“](?P<b>.+)[\"”]\s*\.",
    re.I | re.S,
)
_ORDER = ("aware", "action", "judge")


class InconsistentAnswersError(BeliefGraphError):
    """Answers of one story that contradict each other (must never happen)."""


class AccessSentence(BeliefModel):
    """The sentence that gives Person X access to k, for the aware control."""

    sentence: str
    """Appended to the story ("Mary opens the bag and looks inside.")."""
    events: tuple[EventSpec, ...]
    """Its events (sentence 0 is the access sentence)."""


class ScenarioParse(BeliefModel):
    """The typed reading of one SimpleToM story (recorded by hand, or from the LLM)."""

    id: str
    """The story id, ``{core_id}_sev{n}``."""
    actors: tuple[str, ...]
    person_x: str
    """Whose awareness is asked (as the events name them)."""
    key: Proposition
    """k, the key information, as the events represent it."""
    events: tuple[EventSpec, ...]
    """The story's events (sentence 0: k; sentence 1: X's access)."""
    options: tuple[ActionOption, ...] = ()
    """The behavior options, typed by what they need (empty: type them when asked)."""
    access: AccessSentence | None = None
    key_sentences: tuple[int, ...] = ()
    """The sentences (1-based) the grounding links k to (the LLM path; empty: recorded)."""
    note: str = ""

    def graph(self, story: str) -> BeliefGraph:
        """The belief graph of ``story`` read with these events."""
        return track(story, parser=RecordedParser(events=self.events, actors=self.actors))


# -- loading --------------------------------------------------------------------------------------
_REQUIRED = ("id", "story", "question", "choices", "answerKey")


def _jsonl(path: Path, problems: Problems) -> list[dict[str, Any]]:
    out = []
    for n, line in text_lines(path):
        if not line.strip():
            continue
        with problems.record(path, n):
            require_utf8(line, "the line")
            record = json.loads(line)
            if not isinstance(record, dict):
                raise DataFormatError(f"expected a JSON object, got {type(record).__name__}")
            out.append(record)
    return out


def _is_qa(path: Path) -> bool:
    return (
        path.suffix == ".jsonl"
        and not path.name.startswith(("story-data", "parses"))
        and not (path.name.endswith(".parses.jsonl"))
    )


def load_simpletom(path: Path, problems: Problems | None = None) -> list[Item]:
    """Read released SimpleToM QA JSONL (a file, or every QA file in a folder).

    ``story-data.jsonl`` and ``parses.jsonl`` in the same folder (or ``<stem>.parses.jsonl``
    beside a file) are attached to the items' ``meta``.

    Raises
    ------
    DataFormatError
        Naming the file and line of a record that is not in the released format (with
        ``problems`` given, a bad record is collected there and the rest is read).
    """
    problems = strict_if_none(problems)
    folder = path if path.is_dir() else path.parent
    files = sorted(p for p in folder.iterdir() if _is_qa(p)) if path.is_dir() else [path]
    if not files:
        raise DataFormatError(f"{path}: no SimpleToM QA .jsonl files in this folder")
    stories_file = folder / "story-data.jsonl"
    stories: dict[str, dict[str, Any]] = {}
    if stories_file.is_file():
        for r in _jsonl(stories_file, problems):
            with problems.record(stories_file):
                stories[str(r["id"])] = r
    parses = _read_parses(folder, None if path.is_dir() else path, problems)
    items: list[Item] = []
    for f in files:
        for n, line in text_lines(f):
            if not line.strip():
                continue
            with problems.record(f, n):
                require_utf8(line, "the line")
                record = json.loads(line)
                if not isinstance(record, dict):
                    raise DataFormatError(f"expected a JSON object, got {type(record).__name__}")
                items.append(_item(record, f"{f}:{n}", stories, parses))
    return problems.result(_with_siblings(items))


def _with_siblings(items: list[Item]) -> list[Item]:
    """Give each item the questions of its story (``meta["questions"]``, in the order
    awareness, behavior, judgment): the LLM path grounds them in one call per story."""
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        groups[item.meta["story_id"]].append(item)
    rank = {QUESTION_TYPES[q]: n for n, q in enumerate(_ORDER)}
    questions = {
        sid: [
            {"question": i.question, "choices": list(i.choices)}
            for i in sorted(group, key=lambda i: rank[i.meta["question_type"]])
        ]
        for sid, group in groups.items()
    }
    return [
        i.model_copy(update={"meta": {**i.meta, "questions": questions[i.meta["story_id"]]}})
        for i in items
    ]


def _read_parses(folder: Path, file: Path | None, problems: Problems) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for p in (folder / "parses.jsonl", *([file.with_suffix(".parses.jsonl")] if file else [])):
        if p.is_file():
            for r in _jsonl(p, problems):
                with problems.record(p):
                    try:
                        out[r["id"]] = ScenarioParse.model_validate(r).model_dump(mode="json")
                    except (KeyError, ValidationError) as err:
                        raise DataFormatError(f"{p}: not a ScenarioParse: {err}") from None
    return out


def _item(
    record: dict[str, Any],
    where: str,
    stories: dict[str, dict[str, Any]],
    parses: dict[str, dict[str, Any]],
) -> Item:
    missing = [k for k in _REQUIRED if k not in record]
    if missing:
        raise DataFormatError(f"{where}: missing {missing}; a SimpleToM QA record has {_REQUIRED}")
    m = _ID.match(str(record["id"]))
    if m is None:
        raise DataFormatError(
            f"{where}: id {record['id']!r} is not '{{core_id}}_sev{{1|2|3}}_{{aware|action|judge}}'"
        )
    choices = record["choices"]
    if (
        not isinstance(choices, dict)
        or not isinstance(choices.get("text"), list)
        or not isinstance(choices.get("label"), list)
        or len(choices["text"]) != len(choices["label"])
    ):
        raise DataFormatError(
            f"{where}: choices must be {{text: [...], label: [...]}} of equal length"
        )
    key = record["answerKey"]
    labels = [str(label) for label in choices["label"]]
    if not isinstance(key, str) or key not in labels:
        raise DataFormatError(
            f"{where}: answerKey {key!r} should be one of the choice labels {labels} "
            "(a single string)"
        )
    for field in ("story", "question"):
        if not isinstance(record[field], str):
            raise DataFormatError(
                f"{where}: {field} should be text, got {type(record[field]).__name__}"
            )
    story_id = f"{m['core']}_sev{m['sev']}"
    meta: dict[str, Any] = {
        "story_id": story_id,
        "core_id": m["core"],
        "severity": int(m["sev"]),
        "question_type": QUESTION_TYPES[m["qt"]],
        "scenario": record.get("scenario_name", "?"),
        "labels": list(choices["label"]),
        "source": where,
    }
    if story_id in stories:
        meta["story_data"] = stories[story_id]
    if story_id in parses:
        meta["parse"] = parses[story_id]
    return Item(
        id=str(record["id"]),
        story=str(record["story"]),
        question=str(record["question"]),
        choices=tuple(str(t) for t in choices["text"]),
        answer=str(record["answerKey"]),
        meta=meta,
    )


def load_simpletom_hf(config: str = "all", *, split: str = "test") -> list[Item]:
    """Load the release from Hugging Face (needs the ``datasets`` package and a network).

    Raises
    ------
    ConfigurationError
        When ``datasets`` is not installed (download the JSONL and use ``load_simpletom``).
    """
    try:
        from datasets import load_dataset  # type: ignore[import-not-found]
    except ImportError:
        raise ConfigurationError(
            "loading allenai/SimpleToM from Hugging Face needs the 'datasets' package "
            "(pip install datasets) and a network connection; offline, pass a local JSONL "
            "file to load_simpletom / `beliefgraph eval simpletom --data FILE`"
        ) from None
    configs = list(CONFIGS.values()) if config == "all" else [config]
    items = []
    for c in configs:
        for n, record in enumerate(load_dataset("allenai/SimpleToM", c)[split]):
            items.append(_item(dict(record), f"hf:{c}:{n}", {}, {}))
    return items


# -- answering ------------------------------------------------------------------------------------
def _typed(texts: Iterable[str], options: Sequence[ActionOption]) -> list[ActionOption | None]:
    def find(text: str) -> ActionOption | None:
        t = normalise(text)
        return next((o for o in options if normalise(o.text) == t), None)

    return [find(t) for t in texts]


def _label(item: Item, text: str) -> str | None:
    for t, label in zip(item.choices, item.meta.get("labels", []), strict=False):
        if normalise(t) == normalise(text):
            return str(label)
    return None


def _answer(item: Item, graph: BeliefGraph, parse: ScenarioParse) -> ItemResult:
    reading = read_awareness(graph, parse.person_x, parse.key)
    qtype = item.meta["question_type"]
    lines = [parse.note] if parse.note.startswith("read by the LLM") else []
    lines.extend(reading.explanation)
    if not reading.aware and parse.key_sentences:
        # The graph holds no belief worded as k, but X may have perceived what the grounding
        # links k to (a recall notice read, a bag looked into): that is awareness too.
        seen, why = evidence_access(graph, parse.person_x, parse.key_sentences, parse.key.render())
        lines.append(why)
        if seen:
            reading = reading.model_copy(update={"aware": True, "culpable": False})
    if qtype == "mental_state":
        value = "Yes" if reading.aware else "No"
        implies = "aware" if reading.aware else "unaware"
        lines.append(f"So {parse.person_x} is {'' if reading.aware else 'not '}aware of it.")
    elif qtype == "behavior":
        typed = _typed(item.choices, parse.options)
        if any(t is None for t in typed):
            raise BeliefGraphError(
                f"the parse does not type every option of {item.id}: {list(item.choices)}"
            )
        options = [t for t in typed if t is not None]
        i = predict_action(reading, options)
        if i is None:
            raise BeliefGraphError(f"no single option of {item.id} fits {parse.person_x}'s beliefs")
        value = item.choices[i]
        implies = options[i].needs
        lines.append(f"Its precondition ({implies}) holds in {parse.person_x}'s beliefs: {value}.")
    else:
        m = _JUDGE_Q.match(item.question.strip())
        if m is None:
            raise BeliefGraphError(f"cannot read the judged action of {item.id}: {item.question!r}")
        chosen = _typed([m["a"]], parse.options)[0]
        if chosen is None:
            raise BeliefGraphError(f"the parse does not type the judged action {m['a']!r}")
        ok = judge_action(reading, chosen)
        value = "Reasonable" if ok else "Not reasonable"
        fits = chosen.needs == ("aware" if reading.aware else "unaware")
        # What the answer says about X's awareness: Reasonable means X's beliefs fit the
        # action; Not reasonable means they do not, or that the ignorance was culpable.
        other = "aware" if chosen.needs == "unaware" else "unaware"
        implies = chosen.needs if ok else ("unaware" if reading.culpable else other)
        lines.append(
            f"The judged action {'is' if fits else 'is not'} the one "
            f"{parse.person_x}'s beliefs support"
            + ("; the ignorance was culpable." if reading.culpable else ".")
        )
    label = _label(item, value)
    if label is None:
        raise BeliefGraphError(f"{value!r} is not an option of {item.id}: {list(item.choices)}")
    return ItemResult(
        id=item.id,
        gold=item.answer,
        prediction=label,
        correct=label == item.answer,
        explanation=(*lines, f"Answer: ({label}) {value}"),
        breakdown={
            "question_type": qtype,
            "scenario": str(item.meta.get("scenario", "?")),
            "implies": implies,
        },
    )


# -- the LLM path ---------------------------------------------------------------------------------
class LLMScenarioReader:
    """Read a story from its text with two independent LLM calls: the story parse
    (``story.v1``) and the grounding of its questions (``beliefgraph.ground.v1``, through
    ``beliefgraph.grounding.freeform``). Built only when a model is configured.

    The grounding rows are the key fact k as Person X's belief (from the mental-state
    question, else the story data's ``key_information``, else the first sentence), and every
    behavior option and judged action of the story as "a reason for X to <option>". The reply
    links each to the sentences that state or show it; the engine types an option as needing
    awareness when it rests on a sentence of k (``option_needs``), reads k from the parse's
    events in those sentences, and answers from X's belief in the graph. Neither call reads
    the other's answer, so one batch round serves both.
    """

    def __init__(self, *, parser: Any = None, client: Any = None, **settings: Any) -> None:
        from beliefgraph.grounding import LLMGrounder
        from beliefgraph.parsers.llm import LLMParser

        self._parser = parser if parser is not None else LLMParser(strict=False, **settings)
        self._grounder = LLMGrounder(client if client is not None else self._parser.client)
        self._cache: dict[str, ScenarioParse] = {}

    def read(self, item: Item) -> ScenarioParse:
        sid = item.meta["story_id"]
        parse = self._cache.get(sid)
        if parse is None:
            parse = self._cache[sid] = self._story(item)
        return parse

    def _story(self, item: Item) -> ScenarioParse:
        person = _person_x(item)
        if person is None:
            raise BeliefGraphError(f"cannot tell whose awareness {item.id} asks about")
        # The parse first: a pending answer leaves it unread without raising, so the
        # grounding request is written to the same batch round.
        story = self._parser.parse(item.story)
        named = person
        person = _as_actor(person, story.actors)
        key_text, options = _question_content(item)
        # The rows name X as the data does, so the request depends on the text alone.
        questions = [
            FreeQuestion(text="key", options=(key_text,), holder=named, phrasing="{option}"),
            FreeQuestion(
                text="options",
                options=tuple(options),
                phrasing=f"something in the story gives {named} a reason to {{option}}",
            ),
        ]
        actors = _actors(item, named)
        grounding, (key_ev, option_ev) = ground_questions(
            self._grounder, item.story, actors, questions
        )
        key_sentences = set(key_ev[0].sentences)
        how = f"{key_ev[0].how[0]}" if key_ev[0].how else "?"
        lines = [
            f"The grounding links the key fact to sentence(s) {sorted(key_sentences)} "
            f"({person}: {how}, by the model's reading; the graph decides)."
        ]
        if not key_sentences:
            key_sentences = {1}  # the release's format: the first sentence states k
            lines.append("It links the key fact to no sentence; the first sentence states it.")
        typed: list[ActionOption] = []
        for text, ev in zip(options, option_ev, strict=True):
            # An option the story gives no reason for rests on nothing X may not know: it is
            # what X does anyway (the closed-world reading), so it needs no awareness.
            needs = option_needs(ev, key_sentences) or "unaware"
            typed.append(ActionOption(text=text, needs=needs))  # type: ignore[arg-type]
            lines.append(
                f"{text!r} rests on sentence(s) {ev.sentences}: it "
                + ("needs" if needs == "aware" else "does not need")
                + " awareness of the key fact."
            )
        keys = [
            e.proposition
            for e in story.events
            if e.sentence_index + 1 in key_sentences and e.proposition is not None
        ]
        if not keys:
            raise BeliefGraphError(
                f"the LLM parse of {item.id} reads no fact in sentence(s) {sorted(key_sentences)}"
            )
        keep = set(EventSpec.model_fields) - {"sentence", "ref_subject", "ref_value"}
        events = tuple(
            EventSpec(sentence=e.sentence_index, **{k: getattr(e, k) for k in keep})
            for e in story.events
        )
        events, moved = _co_present(item.story, events, story.actors, grounding)
        lines.extend(moved)
        return ScenarioParse(
            id=item.meta["story_id"],
            actors=story.actors,
            person_x=person,
            key=keys[0],
            events=events,
            options=tuple(typed),
            key_sentences=tuple(sorted(key_sentences)),
            note="read by the LLM. " + " ".join(lines),
        )


def _co_present(
    story: str, events: tuple[EventSpec, ...], actors: Sequence[str], grounding: StoryGrounding
) -> tuple[tuple[EventSpec, ...], list[str]]:
    """Who perceives each event: the perception model's perceivers, less anyone the grounding
    says was not there to perceive the sentence (its scene's ``present`` and ``involved``).

    A story rarely narrates where each person is ("Mary sealed a yogurt in a KFC bag"; her
    classmate appears only in the next sentence), so the perception model, which treats
    everyone as present until someone leaves, would let the classmate see the yogurt go in.
    The grounding's scenes are the model's reading of co-presence; they only ever remove a
    perceiver, never add one. Sentences without a scene (an aware control's appended one)
    keep the perception model's perceivers.
    """
    graph = track(story, parser=RecordedParser(events=events, actors=tuple(actors)))
    steps = graph.timeline.steps
    if len(steps) != len(events):  # not one step per event: leave the perception model be
        return events, []
    out: list[EventSpec] = []
    notes: list[str] = []
    for spec, step in zip(events, steps, strict=True):
        there = co_present(grounding, spec.sentence + 1, lambda a: _as_actor(a, actors))
        if there is None or step.perceivers <= there:
            out.append(spec)
            continue
        kept = tuple(sorted(step.perceivers & there))
        out.append(spec.model_copy(update={"perceivers": kept}))
        gone = ", ".join(sorted(step.perceivers - there))
        notes.append(f"{gone} not there to perceive sentence {spec.sentence + 1} (the grounding).")
    return tuple(out), list(dict.fromkeys(notes))


def _as_actor(name: str, actors: Sequence[str]) -> str:
    """``name`` as the parse spells the actor ("Mary's classmate" is the parse's "classmate",
    "the athlete" its "athlete"): the one actor with the same head noun whose words are among
    the name's; the name itself when none or several are.

    >>> _as_actor("Mary's classmate", ["Mary", "classmate"]), _as_actor("Bo", ["Ann"])
    ('classmate', 'Bo')
    """
    from beliefgraph.parsers.llm.schema import name_key, resolve

    keys = {name_key(a): a for a in actors}
    found = resolve(name_key(name), keys)
    return keys[found] if found is not None else name


def _question_content(item: Item) -> tuple[str, list[str]]:
    """k in words, and every option of the story's behavior and judgment questions."""
    siblings = item.meta.get("questions") or [
        {"question": item.question, "choices": list(item.choices)}
    ]
    key = None
    options: list[str] = []
    for q in siblings:
        text = str(q["question"]).strip()
        if m := _AWARE_Q.match(text):
            key = m["k"].strip()
        elif m := _JUDGE_Q.match(text):
            options.extend([m["a"], m["b"]])
        elif _ACTION_Q.match(text):
            options.extend(str(c) for c in q["choices"])
    data = item.meta.get("story_data") or {}
    if key is None and isinstance(data.get("key_information"), str):
        key = data["key_information"]
    if key is None:
        key = segment(item.story)[0].text
    unique = list(dict.fromkeys(o.strip() for o in options))
    seen: set[str] = set()
    out = []
    for o in unique:
        if normalise(o) not in seen:
            seen.add(normalise(o))
            out.append(o)
    return key, out


def _actors(item: Item, person: str) -> list[str]:
    data = item.meta.get("story_data") or {}
    named = data.get("entities") if isinstance(data.get("entities"), dict) else {}
    people = [str(v) for k, v in named.items() if str(k).startswith("Person") and v]
    return list(dict.fromkeys([person, *people]))


def _person_x(item: Item) -> str | None:
    data = item.meta.get("story_data") or {}
    if isinstance(data.get("entities"), dict) and data["entities"].get("Person X"):
        return str(data["entities"]["Person X"])
    q = item.question.strip()
    for pattern in (_AWARE_Q, _ACTION_Q, _JUDGE_Q):
        if m := pattern.match(q):
            return m["x"]
    return None


# -- the adapter ----------------------------------------------------------------------------------
class _Reader:
    """Recorded parse first, else the LLM (built on first need), else a clear refusal."""

    def __init__(self) -> None:
        self.llm: LLMScenarioReader | None = None
        self.chosen: LLMScenarioReader | None = None
        self.refused: str | None = None

    def __call__(self, item: Item) -> ScenarioParse:
        chosen = chosen_llm_settings()
        if chosen is not None:  # the run chose an LLM parser: it reads the text, not the record
            if self.chosen is None:
                self.chosen = LLMScenarioReader(parser=chosen_llm(), client=chosen_client())
            return self.chosen.read(item)
        if "parse" in item.meta:
            return ScenarioParse.model_validate(item.meta["parse"])
        if self.refused is None and self.llm is None:
            try:
                self.llm = LLMScenarioReader()
            except ConfigurationError as err:
                self.refused = str(err)
        if self.llm is None:
            raise BeliefGraphError(
                f"no recorded parse for story {item.meta['story_id']!r} (parses.jsonl beside "
                f"the data) and no LLM to read it, so it is not answered: {self.refused}"
            )
        return self.llm.read(item)


# -- same model, directly -------------------------------------------------------------------------
DIRECT_PROMPT_ID = "simpletom.paper.v1"
"""The paper's evaluation prompt (Gu et al., App. K.1 without the reminder)."""


def direct_messages(item: Item) -> list[dict[str, str]]:
    """The paper's prompt for one question: story, question, lettered choices, "(A)" or "(B)".

    >>> from beliefgraph.adapters.item import Item
    >>> item = Item(id="x_sev1_aware", story="S.", question="Q?", choices=("No", "Yes"),
    ...             answer="A", meta={"labels": ["A", "B"]})
    >>> print(direct_messages(item)[0]["content"])
    Given the following story, answer the question by giving the correct answer choice, (A) or (B).
    <BLANKLINE>
    Story: S.
    <BLANKLINE>
    Question: Q?
    <BLANKLINE>
    (A) No
    <BLANKLINE>
    (B) Yes
    <BLANKLINE>
    What is the correct answer? Respond with just "(A)" or "(B)"
    """
    labels = [str(x) for x in item.meta.get("labels", ["A", "B"])]
    choices = "\n\n".join(f"({lab}) {text}" for lab, text in zip(labels, item.choices, strict=True))
    letters = " or ".join(f"({lab})" for lab in labels)
    quoted = " or ".join(f'"({lab})"' for lab in labels)
    content = (
        f"Given the following story, answer the question by giving the correct answer choice, "
        f"{letters}.\n\nStory: {item.story}\n\nQuestion: {item.question}\n\n{choices}\n\n"
        f"What is the correct answer? Respond with just {quoted}"
    )
    return [{"role": "user", "content": content}]


def read_direct(reply: str, item: Item) -> str | None:
    """The label a reply gives: the first "(X)" naming a label, else a reply that is one.

    >>> item = Item(id="x", story="", question="", choices=("a", "b"), answer="A",
    ...             meta={"labels": ["A", "B"]})
    >>> read_direct("(B)", item), read_direct("A", item), read_direct("maybe", item)
    ('B', 'A', None)
    """
    labels = [str(x) for x in item.meta.get("labels", ["A", "B"])]
    for m in re.finditer(r"\(([A-Za-z])\)", reply):
        if m[1].upper() in labels:
            return m[1].upper()
    bare = reply.strip().strip(".").upper()
    return bare if bare in labels else None


def _direct_breakdown(item: Item) -> dict[str, str]:
    return {
        "question_type": str(item.meta["question_type"]),
        "scenario": str(item.meta.get("scenario", "?")),
    }


class _Direct:
    """The paper's prompt, one request per question (``adapters.direct.DirectPrompt``)."""

    prompt_id = DIRECT_PROMPT_ID

    def story_key(self, item: Item) -> str:
        return item.id

    def run(self, item: Item, ask: Callable[[list[dict[str, str]]], str]) -> str:
        return ask(direct_messages(item))

    def score(self, item: Item, reply: str) -> ItemResult:
        label = read_direct(reply, item)
        if label is None:
            raise BeliefGraphError(f"the model's reply names no option: {reply[:200]!r}")
        return ItemResult(
            id=item.id,
            gold=item.answer,
            prediction=label,
            correct=label == item.answer,
            explanation=(f"Asked directly ({DIRECT_PROMPT_ID}); the model replied {reply!r}.",),
            breakdown=_direct_breakdown(item),
        )


@benchmarks.register("simpletom")
def make_simpletom(direct: bool = False) -> Benchmark:
    """The SimpleToM adapter (``direct=True``: the same model asked the paper's prompt)."""
    if direct:
        from .direct import make_direct

        return make_direct(make_simpletom(), _Direct())
    read = _Reader()

    def build(item: Item) -> BeliefGraph:
        return read(item).graph(item.story)

    def answer(item: Item, graph: BeliefGraph) -> ItemResult:
        return _answer(item, graph, read(item))

    return Benchmark(
        name="simpletom",
        load=load_simpletom,
        build=build,
        answer=answer,
        breakdowns=("question_type", "scenario"),
        metrics={
            "all_three_correct": lambda rs: simpletom_report(rs, strict=False).all_three,
            "first_failure_mental_state": lambda rs: _share(rs, "mental_state"),
            "first_failure_behavior": lambda rs: _share(rs, "behavior"),
            "first_failure_judgment": lambda rs: _share(rs, "judgment"),
            "contradictions": lambda rs: float(
                len(simpletom_report(rs, strict=False).contradictions)
            ),
            "sibling_disagreements": lambda rs: float(
                len(simpletom_report(rs, strict=False).sibling_disagreements)
            ),
        },
        story_key=lambda item: item.story,
    )


def _share(results: Sequence[ItemResult], step: str) -> float:
    report = simpletom_report(results, strict=False)
    return report.first_failure.get(step, 0) / report.stories if report.stories else 0.0


# -- the report -----------------------------------------------------------------------------------
class SimpleToMReport(BeliefModel):
    """The paper's figures, and the consistency checks."""

    stories: int
    """Stories with all three questions answered or attempted."""
    by_question_type: dict[str, float]
    by_scenario: dict[str, dict[str, float]]
    """Scenario -> question type -> accuracy."""
    all_three: float
    """Share of stories with all three answers right."""
    first_failure: dict[str, int]
    """Fig. 3: where each story first fails (mental_state, behavior, judgment, all_correct)."""
    contradictions: tuple[str, ...]
    """Stories whose answers imply different awareness of Person X (must be empty)."""
    sibling_disagreements: tuple[str, ...]
    """core_ids whose severity siblings were answered differently."""


def simpletom_report(results: Sequence[ItemResult], *, strict: bool = True) -> SimpleToMReport:
    """Per question type and scenario, all-three-right, first failure, and consistency.

    Raises
    ------
    InconsistentAnswersError
        With ``strict``, when the answers of a story contradict each other.
    """
    by_story: dict[str, dict[str, ItemResult]] = defaultdict(dict)
    for r in results:
        m = _ID.match(r.id)
        if m:
            by_story[f"{m['core']}_sev{m['sev']}"][m["qt"]] = r
    acc: dict[str, list[bool]] = defaultdict(list)
    scen: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for r in results:
        qt = r.breakdown.get("question_type", "?")
        acc[qt].append(r.correct)
        scen[r.breakdown.get("scenario", "?")][qt].append(r.correct)
    first: dict[str, int] = defaultdict(int)
    complete = 0
    contradictions = []
    for sid, qs in sorted(by_story.items()):
        if len(qs) == 3:
            complete += 1
            failed = next((QUESTION_TYPES[q] for q in _ORDER if not qs[q].correct), "all_correct")
            first[failed] += 1
        implied = {r.breakdown.get("implies") for r in qs.values() if r.prediction is not None}
        if len(implied) > 1:
            contradictions.append(f"{sid}: {sorted(str(i) for i in implied)}")
    siblings: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for sid, qs in by_story.items():
        core = sid.rsplit("_sev", 1)[0]
        for q, r in qs.items():
            if r.prediction is not None:
                siblings[core][q].add(r.breakdown.get("implies", "?"))
    disagree = tuple(
        core for core, qs in sorted(siblings.items()) if any(len(v) > 1 for v in qs.values())
    )
    report = SimpleToMReport(
        stories=complete,
        by_question_type={k: sum(v) / len(v) for k, v in sorted(acc.items())},
        by_scenario={
            s: {k: sum(v) / len(v) for k, v in sorted(d.items())} for s, d in sorted(scen.items())
        },
        all_three=first.get("all_correct", 0) / complete if complete else 0.0,
        first_failure=dict(first),
        contradictions=tuple(contradictions),
        sibling_disagreements=disagree,
    )
    if strict and report.contradictions:
        raise InconsistentAnswersError(
            "answers of one story contradict each other: " + "; ".join(report.contradictions)
        )
    return report


# -- controls -------------------------------------------------------------------------------------
def aware_variant(items: Sequence[Item], parse: ScenarioParse) -> list[Item]:
    """The aware control of one story: its access sentence appended, every gold flipped.

    Ids become ``{core_id}-aware_sev{n}_{type}``; each item carries the variant's parse.

    Raises
    ------
    BeliefGraphError
        When the parse has no access sentence or no aware-typed option.
    """
    if parse.access is None:
        raise BeliefGraphError(f"the parse of {parse.id} has no access sentence")
    core, sev = parse.id.rsplit("_sev", 1)
    sid = f"{core}-aware_sev{sev}"
    events = list(parse.events)
    out: list[Item] = []
    for item in items:
        story = f"{item.story.rstrip()} {parse.access.sentence}"
        offset = len(segment(item.story))
        shifted = [
            e.model_copy(update={"sentence": e.sentence + offset}) for e in parse.access.events
        ]
        variant = parse.model_copy(
            update={"id": sid, "events": tuple(events + shifted), "access": None}
        )
        qtype = item.meta["question_type"]
        if qtype == "mental_state":
            gold = "Yes"
        elif qtype == "behavior":
            aware = [o.text for o in parse.options if o.needs == "aware"]
            if not aware:
                raise BeliefGraphError(f"the parse of {parse.id} types no option as aware")
            gold = next(c for c in item.choices if normalise(c) == normalise(aware[0]))
        else:
            gold = "Not reasonable"
        label = _label(item, gold)
        qt = item.id.rsplit("_", 1)[1]
        meta = {
            **item.meta,
            "story_id": sid,
            "core_id": f"{core}-aware",
            "parse": variant.model_dump(mode="json"),
        }
        out.append(
            item.model_copy(
                update={"id": f"{sid}_{qt}", "story": story, "answer": label, "meta": meta}
            )
        )
    return out


def aware_controls(items: Sequence[Item]) -> list[Item]:
    """The aware variant of every story whose parse has an access sentence."""
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        groups[item.meta["story_id"]].append(item)
    out: list[Item] = []
    for group in groups.values():
        if "parse" not in group[0].meta:
            continue
        parse = ScenarioParse.model_validate(group[0].meta["parse"])
        if parse.access is not None:
            out.extend(aware_variant(group, parse))
    return out


def write_simpletom(items: Sequence[Item], folder: Path) -> None:
    """Write ``items`` as released QA JSONL (one file per config) plus ``parses.jsonl``."""
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, list[str]] = defaultdict(list)
    parses: dict[str, str] = {}
    for item in items:
        record = {
            "id": item.id,
            "story": item.story,
            "question": item.question,
            "scenario_name": item.meta.get("scenario", "?"),
            "choices": {"text": list(item.choices), "label": list(item.meta["labels"])},
            "answerKey": item.answer,
        }
        files[CONFIGS[item.meta["question_type"]]].append(json.dumps(record, ensure_ascii=False))
        if "parse" in item.meta:
            parses[item.meta["story_id"]] = json.dumps(item.meta["parse"], ensure_ascii=False)
    for name, lines in files.items():
        (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if parses:
        (folder / "parses.jsonl").write_text("\n".join(parses.values()) + "\n", encoding="utf-8")
