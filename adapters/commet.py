"""CoMMET (Chen et al., 2026): multi-turn StoryTurns, lying and moral judgment (seed 003).

No public release exists. This adapter implements the StoryTurn format the paper defines:
each turn has five fields, written ``Story | Feedback | Question | Image | Answer``;
feedback is ``If right: ...; If wrong: ...`` (or one text for both); the answer separates
branching answers with ``;`` and branches line up by index across turns. A file is a JSON
list (or JSONL) of ``{"id", "turns": [...], "task", "mental_states", "source"}`` records,
each turn either the pipe-separated string or an object with the five fields.

The runner (``run_storyturn``) plays one StoryTurn as a conversation: a turn's feedback (the
one that fits whether the previous answer was right) and its story are added to the same
graph as narrator facts and events, and the question is answered from the graph as it then
stands. When a question asks the respondent's own choice ("which snack do you like
best?"), the runner picks an option (``prefer``), that pick fixes the branch, and every later
answer is scored against the same branch. Answer types: the options a question embeds ("the
red race car, or the blue robot?"), yes/no, yes/no with "Because ..." rendered from the
explanation trace, free "why" answers, and short open answers ("What toy does Leo want?").
"Because" and "why" answers are scored by a pluggable judge (``judges``): ``offline`` checks
that the answer cites the key beliefs the recorded parse names and names their holders and
content; ``llm`` asks a model through the LLM client and is only built when one is configured.

Reading the text needs a parse. ``load_commet`` attaches the recorded, hand-checked parse of
each StoryTurn from ``<file stem>.parses.json`` beside the file; without it the LLM path
(``LLMStoryTurnReader``: the LLM story parser plus an LLM-client reading of each question
into a typed ``Query``) is used when a model is configured, and otherwise every question of
the StoryTurn is reported unanswered with the reason. Nothing is guessed.

Scoring: story-level accuracy (every question of a StoryTurn right, as the paper reports)
is the ``story_accuracy`` metric; per-question accuracy is the harness's accuracy.

Limits: ``;`` splits an answer into branches only when the answer is not a yes/no or
"Because" answer (those contain ``;`` as punctuation); a turn's feedback is taken to answer
the previous turn's question; images are not read (the 8 image-dependent StoryTurn types
need the picture described in the text).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import catalogue
from pydantic import BaseModel, ValidationError

from beliefgraph.errors import BeliefGraphError, ConfigurationError, DataFormatError
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import BeliefModel, Proposition
from beliefgraph.reasoning import (
    Cite,
    EventSpec,
    Interpretation,
    OwnChoiceQuery,
    Query,
    Reading,
    RealityQuery,
    Ref,
    StoryBuilder,
    answer_query,
    phrase,
)
from beliefgraph.text import segment

from .benchmark import Benchmark, benchmarks
from .choices import normalise
from .item import Item, ItemResult
from .loading import LoadedItems, Problems, read_text, require_utf8, strict_if_none, text_lines
from .reading import chosen_llm, chosen_llm_settings

__all__ = [
    "AnswerType",
    "Judge",
    "LLMJudge",
    "LLMStoryTurnReader",
    "MissingParseError",
    "OfflineJudge",
    "Query",
    "QuestionResult",
    "StoryTurn",
    "StoryTurnParse",
    "StoryTurnPrompt",
    "StoryTurnRun",
    "Turn",
    "TurnParse",
    "Verdict",
    "answer_type",
    "embedded_options",
    "judges",
    "load_commet",
    "load_storyturns",
    "make_commet",
    "run_storyturn",
    "story_accuracy",
    "turn_message",
]

AnswerType = Literal["options", "yes_no", "yes_no_because", "why", "open"]


class MissingParseError(BeliefGraphError):
    """No recorded parse for a story and no LLM configured to read it."""


# -- the StoryTurn format ---------------------------------------------------------------------
class Turn(BeliefModel):
    """One turn of a StoryTurn: the paper's five fields."""

    story: str = ""
    """The narrative text of this turn (may be empty)."""
    feedback: str = ""
    """``If right: ...; If wrong: ...`` about the previous answer, or one text, or empty."""
    question: str = ""
    image: str = ""
    """The illustration's id (not read)."""
    answer: str = ""
    """The expected answer; ``;`` separates branching answers."""

    @property
    def answers(self) -> tuple[str, ...]:
        """The branches, in order (one for a plain answer)."""
        text = self.answer.strip()
        if re.match(r"^(yes|no|because)\b", text, re.I) or ";" not in text:
            return (text,)
        return tuple(a.strip() for a in text.split(";"))

    @property
    def feedback_right(self) -> str:
        return _feedback(self.feedback)[0]

    @property
    def feedback_wrong(self) -> str:
        return _feedback(self.feedback)[1]

    @classmethod
    def parse(cls, text: str) -> Turn:
        """Read ``Story | Feedback | Question | Image | Answer``.

        Examples
        --------
        >>> Turn.parse("Meet Sam. | | Apple or pear? | 1.png | Apple; Pear").answers
        ('Apple', 'Pear')
        """
        fields = [f.strip() for f in text.split("|")]
        if len(fields) != 5:
            raise ValueError(
                f"a turn has 5 '|'-separated fields (Story | Feedback | Question | Image | "
                f"Answer), got {len(fields)}: {text[:80]!r}"
            )
        story, feedback, question, image, answer = fields
        return cls(story=story, feedback=feedback, question=question, image=image, answer=answer)


_FEEDBACK = re.compile(r"^\s*if right:\s*(?P<r>.*?)\s*;?\s*if wrong:\s*(?P<w>.*?)\s*$", re.I | re.S)


def _feedback(text: str) -> tuple[str, str]:
    m = _FEEDBACK.match(text)
    if m:
        return m["r"], m["w"]
    return text.strip(), text.strip()


class StoryTurn(BeliefModel):
    """A StoryTurn: turns played in order on one story."""

    id: str
    turns: tuple[Turn, ...]
    task: str = ""
    """The booklet task ("2nd Order Belief-Desire Reasoning", ...)."""
    mental_states: tuple[str, ...] = ()
    source: str = ""
    """Where the StoryTurn was transcribed from."""


def _storyturn(record: dict[str, Any]) -> StoryTurn:
    turns = [
        Turn.parse(t) if isinstance(t, str) else Turn.model_validate(t) for t in record["turns"]
    ]
    rest = {k: v for k, v in record.items() if k != "turns"}
    return StoryTurn(turns=tuple(turns), **rest)


# -- recorded parses ------------------------------------------------------------------------------
class TurnParse(BeliefModel):
    """The recorded parse of one turn: its events, its feedback's facts, its question."""

    story: tuple[EventSpec, ...] = ()
    """Events of the turn's story text (sentence numbers within that text)."""
    skip: tuple[int, ...] = ()
    """Sentences of the story text that state nothing about the story world ("You do?")."""
    feedback_right: tuple[EventSpec, ...] = ()
    """Narrator facts of the feedback given after a right answer."""
    feedback_wrong: tuple[EventSpec, ...] = ()
    """Narrator facts of the feedback given after a wrong answer."""
    question: Query
    key: tuple[Cite, ...] = ()
    """The beliefs a "why" / "Because" answer must name (read off the gold by hand)."""


class StoryTurnParse(BeliefModel):
    """The recorded, hand-checked parse of a StoryTurn, turn by turn."""

    id: str
    actors: tuple[str, ...]
    turns: tuple[TurnParse, ...]
    note: str = ""
    """Parse decisions a reader should know about."""


# -- loading --------------------------------------------------------------------------------------
def load_storyturns(path: Path, problems: Problems | None = None) -> list[StoryTurn]:
    """Read StoryTurns from a JSON list or a JSONL file (or every such file in a folder).

    Raises
    ------
    DataFormatError
        Naming the file (and record or line) that is not in the StoryTurn format (with
        ``problems`` given, a bad record is collected there and the rest is read).
    """
    problems = strict_if_none(problems)
    if path.is_dir():
        files = sorted(
            p
            for p in path.iterdir()
            if p.suffix in (".json", ".jsonl") and not p.name.endswith(".parses.json")
        )
        if not files:
            raise DataFormatError(f"{path}: no StoryTurn .json / .jsonl files in this folder")
        turns: list[StoryTurn] = []
        for f in files:
            with problems.record(f):
                turns.extend(load_storyturns(f, problems))
        return turns
    # (line, record): a JSONL file has a line per record; a JSON list has record numbers.
    records: list[tuple[int | None, str, Any]] = []
    if path.suffix == ".jsonl":
        for lineno, ln in text_lines(path):
            if ln.strip():
                with problems.record(path, lineno):
                    records.append((lineno, "record", json.loads(ln)))
    else:
        try:
            data = json.loads(read_text(path))
        except json.JSONDecodeError as err:
            raise DataFormatError(f"{path}:{err.lineno}: not JSON ({err.msg})") from None
        if not isinstance(data, list):
            raise DataFormatError(f"{path}: expected a list of StoryTurn records")
        records = [(None, f"record {n}", rec) for n, rec in enumerate(data, start=1)]
    out = []
    for line, name, rec in records:
        with problems.record(path, line):
            require_utf8(rec, name)
            try:
                out.append(_storyturn(rec))
            except (KeyError, TypeError, ValueError, ValidationError) as err:
                raise DataFormatError(f"{name}: not a StoryTurn: {err}") from None
    return out


def _read_parses(path: Path, problems: Problems | None = None) -> dict[str, StoryTurnParse]:
    problems = strict_if_none(problems)
    folder = path if path.is_dir() else path.parent
    candidates = (
        sorted(folder.glob("*.parses.json"))
        if path.is_dir()
        else [path.with_name(path.stem + ".parses.json")]
    )
    out: dict[str, StoryTurnParse] = {}
    for f in candidates:
        if not f.is_file():
            continue
        with problems.record(f):
            try:
                for rec in json.loads(read_text(f)):
                    require_utf8(rec, "a parse")
                    p = StoryTurnParse.model_validate(rec)
                    out[p.id] = p
            except (json.JSONDecodeError, ValidationError) as err:
                raise DataFormatError(f"{f}: not a list of StoryTurn parses: {err}") from None
    return out


def load_commet(path: Path, problems: Problems | None = None) -> list[Item]:
    """One item per question of every StoryTurn, with the recorded parse when there is one.

    Raises
    ------
    DataFormatError
        As ``load_storyturns`` (with ``problems`` given, a bad record is collected there).
    """
    problems = strict_if_none(problems)
    parses = _read_parses(path, problems)
    items: list[Item] = []
    for st in load_storyturns(path, problems):
        for k, turn in enumerate(st.turns):
            if not turn.question:
                continue
            meta: dict[str, Any] = {
                "storyturn": st.id,
                "turn": k,
                "task": st.task,
                "answer_type": answer_type(turn.question, turn.answer),
                "record": st.model_dump(mode="json"),
            }
            if st.id in parses:
                meta["parse"] = parses[st.id].model_dump(mode="json")
            items.append(
                Item(
                    id=f"{st.id}:t{k + 1}",
                    story=st.id,
                    question=turn.question,
                    answer=turn.answer,
                    meta=meta,
                )
            )
    return problems.result(items)


# -- answer types ---------------------------------------------------------------------------------
_YES_NO = re.compile(
    r"^(is|are|was|were|do|does|did|will|would|can|could|has|have|had|should)\b", re.I
)


def embedded_options(question: str) -> tuple[str, ...]:
    """The options a question lists at its end ("..., the apple or the chocolate?").

    Examples
    --------
    >>> embedded_options("What does Mom think Leo wants: the red race car, or the blue robot?")
    ('the red race car', 'the blue robot')
    >>> embedded_options("How does Mia feel, Sad or Fine?")
    ('Sad', 'Fine')
    >>> embedded_options("Is it fair? Why or why not?")
    ()
    """
    body = question.strip().rstrip("?").strip()
    tail = re.split(r"[:?]", body)[-1]
    if " or " not in tail or re.search(r"why or why not", tail, re.I):
        return ()
    parts = tail.split(",")
    for k in range(len(parts) - 1, -1, -1):
        chunk = ",".join(parts[k:]).strip()
        pieces = [p.strip() for p in re.split(r",?\s+or\s+|,\s*", chunk) if p.strip()]
        if " or " in chunk and len(pieces) >= 2 and not chunk.lower().startswith("or "):
            return tuple(pieces)
    return ()


def answer_type(question: str, answer: str = "") -> AnswerType:
    """The form an answer takes, from the question (and the gold's first word)."""
    q = question.strip()
    if re.search(r"why or why not", q, re.I):
        return "yes_no_because"
    if re.search(r"(^|[.?!]\s*)why\b", q, re.I):
        return "why"
    if embedded_options(q):
        return "options"
    if _YES_NO.match(q) or re.match(r"^(yes|no)\b", answer.strip(), re.I):
        return "yes_no"
    return "open"


# -- judges ---------------------------------------------------------------------------------------
class Verdict(BeliefModel):
    """A judge's decision on an explanatory answer."""

    correct: bool
    reason: str = ""


class Judge(Protocol):
    """Decides whether an explanatory answer is right."""

    name: str

    def __call__(
        self, *, question: str, gold: str, answer: str, reading: Reading, key: Sequence[Cite]
    ) -> Verdict: ...


judges = catalogue.create("beliefgraph", "commet_judges", entry_points=True)

_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "so",
        "because",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "he",
        "she",
        "it",
        "they",
        "his",
        "her",
        "its",
        "their",
        "him",
        "them",
        "that",
        "this",
        "not",
        "did",
        "does",
        "do",
        "had",
        "has",
        "have",
        "when",
        "then",
        "what",
        "why",
        "just",
        "very",
        "really",
        "actually",
    ]
)


def _words(text: str) -> set[str]:
    return {normalise(w) for w in re.findall(r"[a-z']+", text.lower()) if w not in _STOP}


class OfflineJudge:
    """Right when the answer cites every key belief (same holders, same proposition, held or
    not held as the key says) and names each key belief's holders and content.

    Without a key, right when the answer recalls at least half of the gold's content words
    (a crude check, reported as such in the verdict).
    """

    name = "offline"

    def __call__(
        self, *, question: str, gold: str, answer: str, reading: Reading, key: Sequence[Cite]
    ) -> Verdict:
        if not key:
            gw, aw = _words(gold), _words(answer)
            recall = len(gw & aw) / len(gw) if gw else 0.0
            return Verdict(correct=recall >= 0.5, reason=f"no key: gold word recall {recall:.2f}")
        text = normalise(answer)
        for k in key:
            if not any(_matches(c, k) for c in reading.cites):
                return Verdict(correct=False, reason=f"does not rest on: {_render_cite(k)}")
            for name in (*k.holders, k.proposition.subject, k.proposition.value or ""):
                if name and normalise(name) not in text:
                    return Verdict(correct=False, reason=f"does not name {name!r}")
        return Verdict(correct=True, reason=f"names the {len(key)} key belief(s)")


def _matches(c: Cite, k: Cite) -> bool:
    return (
        c.holders == k.holders
        and c.held == k.held
        and c.proposition.variable == k.proposition.variable
        and c.proposition.assigned == k.proposition.assigned
    )


def _render_cite(c: Cite) -> str:
    who = " thinks ".join(c.holders) or "in fact"
    return f"{who}{'' if c.held else ' not'}: {phrase(c.proposition)}"


class _LLMVerdict(BaseModel):
    correct: bool
    """True when the answer gives the same reason as the reference answer."""
    reason: str
    """One sentence."""


class LLMJudge:
    """Asks a model (through the LLM client) whether the answer gives the gold's reason.

    Built only when a model is configured (``BELIEFGRAPH_LLM_BASE_URL`` /
    ``BELIEFGRAPH_LLM_MODEL``, see ``docs/llm.md``); otherwise ``LLMConfigurationError``.
    """

    name = "llm"

    def __init__(self, **settings: Any) -> None:
        self._extract = _llm_extractor(**settings)

    def __call__(
        self, *, question: str, gold: str, answer: str, reading: Reading, key: Sequence[Cite]
    ) -> Verdict:
        prompt = (
            "You grade answers to theory-of-mind questions about a story. The reference answer "
            "is correct. Is the candidate answer correct: does it give the same yes/no (if any) "
            "and the same key reason (whose belief, about what)? Wording does not matter.\n"
            f"Question: {question}\nReference answer: {gold}\nCandidate answer: {answer}"
        )
        v = self._extract(_LLMVerdict, prompt)
        return Verdict(correct=v.correct, reason=f"llm: {v.reason}")


@judges.register("offline")
def make_offline_judge() -> OfflineJudge:
    return OfflineJudge()


@judges.register("llm")
def make_llm_judge(**settings: Any) -> LLMJudge:
    return LLMJudge(**settings)


judges.register("beliefgraph.commet_judge.offline.v1", func=make_offline_judge)
judges.register("beliefgraph.commet_judge.llm.v1", func=make_llm_judge)


def _llm_extractor(client: Any = None, **settings: Any) -> Callable[[type[BaseModel], str], Any]:
    """``(response_model, prompt) -> model`` over the one LLM client (its cache, retries,
    re-asks, usage counts, shield and batch files): ``client`` (the run parser's, so its
    cache and batch file apply), else one built on the LLM parser's settings.

    Raises
    ------
    LLMConfigurationError
        When no model is configured (the message names the variables to set).
    """
    if client is None:
        from beliefgraph.parsers.llm import make_client

        client = make_client(**settings)

    def extract(model: type[BaseModel], prompt: str) -> Any:
        return client.extract(model, [{"role": "user", "content": prompt}])

    return extract


# -- the runner -----------------------------------------------------------------------------------
class QuestionResult(BeliefModel):
    """One question of a played StoryTurn."""

    turn: int
    """0-based turn index."""
    question: str
    answer_type: AnswerType
    gold: str
    """The gold answer of the branch being followed."""
    prediction: str | None
    correct: bool
    verdict: str = ""
    """The judge's reason, for explanatory answers."""
    reading: Reading | None = None
    explanation: tuple[str, ...] = ()


@dataclass
class StoryTurnRun:
    """A StoryTurn played to the end."""

    id: str
    results: list[QuestionResult]
    branch: int | None
    """The branch the respondent's own choice fixed (None: no branching)."""
    graph: BeliefGraph
    interpretations: list[Interpretation] = field(default_factory=list)

    @property
    def correct(self) -> bool:
        """Story-level: every question right."""
        return all(r.correct for r in self.results)


def run_storyturn(
    storyturn: StoryTurn,
    parse: StoryTurnParse,
    *,
    prefer: int = 0,
    judge: Judge | None = None,
) -> StoryTurnRun:
    """Play ``storyturn`` on one growing graph and score every answer.

    Parameters
    ----------
    storyturn : StoryTurn
        The turns as released.
    parse : StoryTurnParse
        Their typed reading (recorded, or from ``LLMStoryTurnReader``).
    prefer : int
        Which option the respondent picks when asked its own choice (this fixes the branch).
    judge : Judge, optional
        Scores "why" and "Because" answers (default: ``OfflineJudge``).

    Raises
    ------
    DataFormatError
        When the parse does not have one entry per turn.
    BeliefGraphError
        When an event of the parse cannot be placed (a missing sentence, an unresolvable
        reference).
    """
    if len(parse.turns) != len(storyturn.turns):
        raise DataFormatError(
            f"StoryTurn {storyturn.id!r} has {len(storyturn.turns)} turns but its parse has "
            f"{len(parse.turns)}"
        )
    _check_sentences(storyturn, parse)
    judge = judge or OfflineJudge()
    builder = StoryBuilder(parse.actors)
    results: list[QuestionResult] = []
    branch: int | None = None
    previous: bool | None = None
    for k, (turn, tp) in enumerate(zip(storyturn.turns, parse.turns, strict=True)):
        if turn.feedback and previous is not None:
            text = turn.feedback_right if previous else turn.feedback_wrong
            specs = tp.feedback_right if previous else tp.feedback_wrong
            _add(builder, text, specs, ())
        _add(builder, turn.story, tp.story, tp.skip)
        if not turn.question:
            continue
        graph = builder.graph()
        atype = answer_type(turn.question, turn.answer)
        golds = turn.answers
        q = tp.question
        if isinstance(q, OwnChoiceQuery):
            reading = _own_choice(builder, q, prefer)
            pick = str(reading.value)
            branch = next((i for i, g in enumerate(golds) if _same_answer(pick, g)), branch)
        else:
            reading = answer_query(graph, builder.interpretations, q)
        gold = golds[branch if branch is not None and branch < len(golds) else 0]
        if len(golds) > 1 and branch is None:
            gold = golds[min(prefer, len(golds) - 1)]
        prediction = render(reading, atype, turn.question)
        correct, verdict = _score(prediction, gold, atype, reading, tp.key, turn.question, judge)
        results.append(
            QuestionResult(
                turn=k,
                question=turn.question,
                answer_type=atype,
                gold=gold,
                prediction=prediction,
                correct=correct,
                verdict=verdict,
                reading=reading,
                explanation=_explain(q, reading),
            )
        )
        previous = correct
    return StoryTurnRun(
        id=storyturn.id,
        results=results,
        branch=branch,
        graph=builder.graph(),
        interpretations=list(builder.interpretations),
    )


def _check_sentences(storyturn: StoryTurn, parse: StoryTurnParse) -> None:
    """Every event of the parse (feedback not given included) cites a sentence of its text."""
    for k, (turn, tp) in enumerate(zip(storyturn.turns, parse.turns, strict=True)):
        for what, text, specs in (
            ("story", turn.story, tp.story),
            ("right feedback", turn.feedback_right, tp.feedback_right),
            ("wrong feedback", turn.feedback_wrong, tp.feedback_wrong),
        ):
            n = len(segment(text))
            bad = [s.sentence for s in specs if s.sentence >= n]
            if bad:
                raise DataFormatError(
                    f"the parse of {storyturn.id!r} turn {k + 1} cites sentence(s) {bad} of "
                    f"its {what}, which has {n}"
                )


def _add(builder: StoryBuilder, text: str, specs: Sequence[EventSpec], skip: Sequence[int]) -> None:
    if not text.strip():
        if specs:
            raise BeliefGraphError("the parse gives events for an empty text")
        return
    base = builder.add_text(text)
    for i in skip:
        builder.mark_read(base + i)
    for spec in specs:
        builder.add(spec, base)


def _own_choice(builder: StoryBuilder, q: OwnChoiceQuery, prefer: int) -> Reading:
    pick = q.options[prefer % len(q.options)]
    base = builder.add_text(f"{q.respondent}: {pick}.")
    prop = Proposition(
        content_type="Desire/Intention", subject=q.respondent, relation=q.relation, value=pick
    )
    builder.add(EventSpec(kind="narrate", proposition=prop), base)
    return Reading(value=pick, because=(f"the respondent picks {pick}",))


# -- rendering and scoring ------------------------------------------------------------------------
def render(reading: Reading, atype: AnswerType, question: str) -> str | None:
    """The reading as an answer of the question's type."""
    v = reading.value
    if atype in ("yes_no", "yes_no_because"):
        if not isinstance(v, bool):
            return None
        yes = "Yes" if v else "No"
        if atype == "yes_no" or not reading.because:
            return yes
        return f"{yes}. Because {'; '.join(reading.because)}."
    if atype == "why":
        return f"Because {'; '.join(reading.because)}." if reading.because else None
    if not isinstance(v, str) or not v:
        return None
    options = embedded_options(question)
    shown = next((o for o in options if normalise(o) == normalise(v)), v)
    if shown[:1].islower() and not shown.startswith(("the ", "a ", "an ")):
        shown = f"the {shown}"
    return shown[:1].upper() + shown[1:] + ("" if shown.endswith(".") else ".")


def _same_answer(pred: str, gold: str) -> bool:
    p, g = normalise(pred), normalise(gold)
    return bool(p) and (p == g or p in g or g in p)


def _score(
    prediction: str | None,
    gold: str,
    atype: AnswerType,
    reading: Reading,
    key: Sequence[Cite],
    question: str,
    judge: Judge,
) -> tuple[bool, str]:
    if prediction is None:
        return False, "no answer"
    if atype in ("options", "open"):
        return _same_answer(prediction, gold), ""
    first = re.match(r"^\W*(yes|no)\b", gold, re.I)
    if atype in ("yes_no", "yes_no_because"):
        if first is None or not prediction.lower().startswith(first[1].lower()):
            return False, "yes/no differs"
        if atype == "yes_no":
            return True, ""
    v = judge(question=question, gold=gold, answer=prediction, reading=reading, key=key)
    return v.correct, f"{judge.name}: {v.reason}"


def _explain(q: Any, reading: Reading) -> tuple[str, ...]:
    lines = [f"query: {q.kind} {q.model_dump(exclude={'kind'}, exclude_none=True)}"]
    lines.extend(reading.because)
    lines.extend(f"cites: {_render_cite(c)}" for c in reading.cites)
    return tuple(lines)


def story_accuracy(results: Sequence[ItemResult]) -> float:
    """The share of StoryTurns whose every question is right (the paper's metric)."""
    stories: dict[str, bool] = {}
    for r in results:
        sid = r.id.rsplit(":t", 1)[0]
        stories[sid] = stories.get(sid, True) and r.correct
    return sum(stories.values()) / len(stories) if stories else 0.0


def _story_count(results: Sequence[ItemResult]) -> float:
    return float(len({r.id.rsplit(":t", 1)[0] for r in results}))


# -- the LLM path (plumbing) ----------------------------------------------------------------------
class _QuestionOut(BaseModel):
    query: Query


class LLMStoryTurnReader:
    """Read a StoryTurn with an LLM: each turn's story and feedback through the LLM story
    parser, each question through the LLM client into a typed ``Query``.

    The LLM parser has no referring expressions, so "the toy you asked for" is resolved by
    the model, not in each actor's beliefs; and no key beliefs are recorded, so the offline
    judge falls back to word recall. Built only when a model is configured.
    """

    def __init__(self, *, parser: Any = None, **settings: Any) -> None:
        from beliefgraph.parsers.llm import LLMParser

        self._parser = parser if parser is not None else LLMParser(strict=False, **settings)
        # The questions go through the parser's own client: the run's cache and batch file.
        self._extract = _llm_extractor(getattr(self._parser, "client", None), **settings)
        self._pending: Any = None

    def read(self, storyturn: StoryTurn) -> StoryTurnParse:
        """Read every turn; the requests of one StoryTurn are independent of each other.

        Raises
        ------
        AnswerPending
            After every turn was read, when a question's request went to a batch file
            (``batch_out``): all of the StoryTurn's requests are written in one round.
        """
        from beliefgraph.parsers.llm import AnswerPending

        actors: list[str] = []
        turns: list[TurnParse] = []
        told: list[str] = []
        self._pending: AnswerPending | None = None
        none = RealityQuery(
            proposition=Proposition(content_type="Action/Event", subject="-", relation="-")
        )
        for turn in storyturn.turns:
            story = self._specs(turn.story, actors)
            right = self._specs(turn.feedback_right, actors)
            wrong = self._specs(turn.feedback_wrong, actors)
            told.append(turn.story)
            prompt = (
                "Read the question about the story into one typed query. Use the names the "
                f"story uses. Story so far: {' '.join(told)}\nQuestion: {turn.question}"
            )
            q = none
            if turn.question:
                try:
                    q = self._extract(_QuestionOut, prompt).query
                except AnswerPending as err:  # write the other turns' requests too
                    self._pending = self._pending or err
            turns.append(
                TurnParse(story=story, feedback_right=right, feedback_wrong=wrong, question=q)
            )
        if self._pending is not None:
            raise self._pending
        return StoryTurnParse(
            id=storyturn.id, actors=tuple(actors), turns=tuple(turns), note="read by the LLM"
        )

    def _specs(self, text: str, actors: list[str]) -> tuple[EventSpec, ...]:
        from beliefgraph.parsers.llm import AnswerPending

        if not text.strip():
            return ()
        try:
            story = self._parser.parse(text)
        except AnswerPending as err:  # a strict parser in a batch run: read on, raise at the end
            self._pending = self._pending or err
            return ()
        actors.extend(a for a in story.actors if a not in actors)
        keep = set(EventSpec.model_fields) - {"sentence", "ref_subject", "ref_value"}
        things = [e.obj for e in story.events if e.obj] + [
            e.proposition.subject for e in story.events
            if e.proposition is not None and e.proposition.relation == "in"
        ]  # fmt: skip
        return tuple(
            _size_request(
                EventSpec(sentence=e.sentence_index, **{k: getattr(e, k) for k in keep}),
                list(dict.fromkeys(things)),
            )
            for e in story.events
        )


_SIZES = {"tiny": 0, "little": 1, "small": 1, "smaller": 1, "smallest": 1, "medium": 2,
          "medium-sized": 2, "mid-sized": 2, "large": 3, "big": 3, "bigger": 3, "biggest": 3,
          "larger": 3, "largest": 3, "huge": 4, "giant": 4}  # fmt: skip
"""Size words in ascending order of the scale (a referring "the big cookie" picks the largest
of the cookies the hearer can see)."""
_SMALLER = frozenset({"tiny", "little", "small", "smaller", "smallest"})


def _size_request(spec: EventSpec, things: Sequence[str]) -> EventSpec:
    """A telling that names a thing by its size ("I want the big cookie") among several
    things of that kind the story sizes (the small, medium-sized and large cookie): a
    superlative reference, which each hearer resolves among the ones it can see
    (``reasoning.resolve_ref``), as a recorded parse writes it. Anything else as it is."""
    p = spec.proposition
    if spec.kind != "tell" or p is None or not spec.hearers or not spec.actors:
        return spec
    words = str(p.value or "").lower().replace("-", " ").split()
    said = next((w for w in words if w in _SIZES), None)
    if said is None or not words:
        return spec
    at = words.index(said)
    after = normalise(" ".join(words[at + 1 : at + 2]))  # the noun the size word modifies
    head = after.split()[-1] if after else ""
    sized = [t for t in things
             if normalise(t).split() and normalise(t).split()[-1] == head
             and any(w in _SIZES for w in t.lower().split())]  # fmt: skip
    if len(sized) < 2:
        return spec
    ascending = sorted(sized, key=lambda t: max(_SIZES.get(w, 0) for w in t.lower().split()))
    among = tuple(reversed(ascending)) if said in _SMALLER else tuple(ascending)
    text = " ".join(words[at - 1 if at and words[at - 1] == "the" else at : at + 2])
    want = Proposition(content_type="Desire/Intention", subject=spec.actors[0], relation="want",
                       value=among[-1])  # fmt: skip
    ref = Ref(kind="superlative", among=among, text=text)
    return spec.model_copy(update={"proposition": want, "ref_value": ref})


# -- the adapter ----------------------------------------------------------------------------------
def _parse_of(item: Item, cache: dict[str, Any]) -> StoryTurnParse:
    chosen = chosen_llm_settings()
    if chosen is not None:  # the run chose an LLM parser: it reads the text, not the record
        if "chosen_reader" not in cache:
            cache["chosen_reader"] = LLMStoryTurnReader(parser=chosen_llm(), **chosen)
        return cache["chosen_reader"].read(StoryTurn.model_validate(item.meta["record"]))
    if "parse" in item.meta:
        return StoryTurnParse.model_validate(item.meta["parse"])
    reader = cache.get("reader")
    if reader is None:
        try:
            reader = cache["reader"] = LLMStoryTurnReader()
        except ConfigurationError as err:
            raise MissingParseError(
                f"no recorded parse for StoryTurn {item.meta['storyturn']!r} (expected in "
                f"<data file stem>.parses.json) and no LLM to read it: {err}"
            ) from None
    return reader.read(StoryTurn.model_validate(item.meta["record"]))


# -- the same model, directly: the StoryTurn as a conversation ------------------------------------
def turn_message(turn: Turn, previous: bool | None) -> str:
    """What the respondent is told at a turn: the feedback that fits whether its previous
    answer was right (none before the first answer), the turn's story, then its question.

    The paper prints no prompt: this is the plainest rendering of its StoryTurn fields.

    >>> t = Turn.parse("Sam is here. | If right: Yes!; If wrong: No. | Where is Sam? |  | Here")
    >>> print(turn_message(t, False))
    No.
    <BLANKLINE>
    Sam is here.
    <BLANKLINE>
    Where is Sam?
    """
    feedback = ""
    if turn.feedback and previous is not None:
        feedback = turn.feedback_right if previous else turn.feedback_wrong
    return "\n\n".join(p.strip() for p in (feedback, turn.story, turn.question) if p.strip())


@dataclass
class _Conversation:
    replies: dict[int, str] = field(default_factory=dict)
    results: dict[int, tuple[bool, str, str]] = field(default_factory=dict)
    """turn -> (correct, gold followed, verdict)."""
    pending: str = ""
    """Why the conversation stopped early: its next turn waits for a batch round."""


class StoryTurnPrompt:
    """CoMMET's StoryTurn played as a conversation with the model (the paper's multi-turn
    protocol): one request per question turn, carrying the earlier turns and the model's own
    replies, the feedback chosen by whether its previous reply was right (this adapter's
    scorer and judge). A turn's request needs the previous reply: one batch round per turn.
    """

    prompt_id = "commet.conversation.v1"

    def __init__(self, judge: Callable[[], Judge]) -> None:
        self._judge = judge  # resolved when the first StoryTurn is scored

    def story_key(self, item: Item) -> str:
        return str(item.meta["storyturn"])

    def run(self, item: Item, ask: Callable[[list[dict[str, str]]], str]) -> _Conversation:
        from beliefgraph.parsers.llm import AnswerPending

        storyturn = StoryTurn.model_validate(item.meta["record"])
        out = _Conversation()
        messages: list[dict[str, str]] = []
        carried: list[str] = []  # text of turns without a question, told with the next one
        previous: bool | None = None
        branch: int | None = None
        for k, turn in enumerate(storyturn.turns):
            said = turn_message(turn, previous)
            if not turn.question:
                carried.append(said)
                continue
            messages.append({"role": "user", "content": "\n\n".join([*carried, said])})
            carried = []
            try:
                reply = ask(list(messages))
            except AnswerPending as err:  # this turn needs the next batch round; keep the rest
                out.pending = str(err)
                break
            messages.append({"role": "assistant", "content": reply})
            golds = turn.answers
            if len(golds) > 1 and branch is None:  # a branching answer: the reply picks one
                branch = next((i for i, g in enumerate(golds) if _same_answer(reply, g)), None)
            gold = golds[branch if branch is not None and branch < len(golds) else 0]
            atype = answer_type(turn.question, turn.answer)
            correct, verdict = _score(
                reply.strip(), gold, atype, Reading(value=None), (), turn.question, self._judge()
            )
            out.replies[k] = reply
            out.results[k] = (correct, gold, verdict)
            previous = correct
        return out

    def score(self, item: Item, state: Any) -> ItemResult:
        k = int(item.meta["turn"])
        conversation: _Conversation = state
        reply = conversation.replies.get(k)
        unasked = conversation.pending or "no reply"
        correct, gold, verdict = conversation.results.get(k, (False, item.answer, unasked))
        return ItemResult(
            id=item.id,
            gold=gold,
            prediction=None if reply is None else reply.strip(),
            correct=correct,
            explanation=tuple(
                x for x in (None if reply is None else f"the model replied {reply!r}", verdict) if x
            ),
            breakdown={
                "task": item.meta.get("task") or "?",
                "answer_type": str(item.meta["answer_type"]),
            },
        )


def _first_storyturns(n: int | None) -> Callable[..., list[Item]]:
    """The loader, keeping the questions of the first ``n`` StoryTurns of the file."""
    if n is None:
        return load_commet
    if n < 1:
        raise ConfigurationError(f"storyturns must be a positive number, got {n!r}")

    def load(path: Path, problems: Problems | None = None) -> list[Item]:
        items = load_commet(path, problems)
        keep = list(dict.fromkeys(str(i.meta["storyturn"]) for i in items))[:n]
        return LoadedItems([i for i in items if i.meta["storyturn"] in keep],
                           getattr(items, "problems", ()))  # fmt: skip

    return load


@benchmarks.register("commet")
def make_commet(
    prefer: int = 0,
    judge: str | None = None,
    *,
    direct: bool = False,
    storyturns: int | None = None,
) -> Benchmark:
    """The CoMMET adapter.

    Parameters
    ----------
    prefer : int
        The option the respondent picks when asked its own choice.
    judge : str, optional
        A registered judge for "why" / "Because" answers; default
        ``$BELIEFGRAPH_COMMET_JUDGE`` or ``offline``.
    direct : bool
        The same-model direct baseline: each StoryTurn played as a conversation with the
        model (``StoryTurnPrompt``), its replies scored by the same scorer and judge.
    storyturns : int, optional
        Only the questions of the first ``storyturns`` StoryTurns of the file.
    """
    runs: dict[str, StoryTurnRun] = {}
    cache: dict[str, Any] = {}
    judge_name = judge or os.environ.get("BELIEFGRAPH_COMMET_JUDGE", "offline")

    def the_judge() -> Judge:
        if "judge" not in cache:
            from beliefgraph.registry import resolve

            cache["judge"] = resolve(judges, judge_name, "CoMMET judge")()
        return cache["judge"]

    def build(item: Item) -> BeliefGraph:
        the_judge()
        st = StoryTurn.model_validate(item.meta["record"])
        run = run_storyturn(st, _parse_of(item, cache), prefer=prefer, judge=cache["judge"])
        runs[st.id] = run
        return run.graph

    def answer(item: Item, graph: BeliefGraph) -> ItemResult:
        del graph  # the run kept every turn's graph reading
        run = runs[item.meta["storyturn"]]
        qr = next(r for r in run.results if r.turn == item.meta["turn"])
        return ItemResult(
            id=item.id,
            gold=qr.gold,
            prediction=qr.prediction,
            correct=qr.correct,
            explanation=(*qr.explanation, *([qr.verdict] if qr.verdict else [])),
            breakdown={"task": item.meta.get("task") or "?", "answer_type": qr.answer_type},
        )

    base = Benchmark(
        name="commet",
        load=_first_storyturns(storyturns),
        build=build,
        answer=answer,
        breakdowns=("task", "answer_type"),
        metrics={"story_accuracy": story_accuracy, "stories": _story_count},
        headline="story_accuracy",  # the paper scores a StoryTurn right only if all of it is
        story_key=lambda item: item.meta["storyturn"],
    )
    if direct:
        from .direct import make_direct

        return make_direct(base, StoryTurnPrompt(the_judge))
    return base
