"""ToMBench (Chen et al., 2024): 20 bilingual multiple-choice tasks, one JSONL file per task.

The loader keeps the English fields (``STORY``, ``QUESTION``, ``OPTION-A`` .. ``OPTION-D``)
and the gold letter; the options are the non-null ones in order (C and D are ``NaN`` in
two-option items), each with its letter in ``meta["letters"]``. Breakdowns: the record's
``ABILITY`` and its task file.

Offline, the False Belief Task and Percepts-Knowledge Links are answered (``OFFLINE_TASKS``):
their stories (location and content false beliefs, first and second order; who saw an object
moved) are read by the rules parser with the default perception model (closed containers)
and the ``default`` trust policy, and the question's answer is mapped to an option with
``match_choice`` (a yes/no "Does X know where T is?" to "Does not know" or the "Knows, in
the R" option naming where T is). The other 18 tasks need a parser that reads free
narrative: offline their items are reported unanswered, with the reason, without parsing
anything. With an LLM parser every story is read from its text, and a question the question
module does not read is answered through the grounding of its options
(``beliefgraph.grounding.freeform``; ``free_questions``).

The English fields were translated from the Chinese ones, and the translation varies within a
story. Before asking, the answerer reads a question the way its story is written:

- a trailing "... after X returns to the R?" becomes the lead-in "After X returns to the R, ...",
  and the comma-spliced "X returns to the R, does X know ...?" gets its "After";
- a holder named differently from the story ("Xiaogang" / "Xiao Gang", "Lilei" / "Li Lei",
  or a calque such as "Xiao Red" for "Xiao Hong") is renamed to the story's actor;
- an object the story never names ("jacket" where the story says "coat") is read as the
  story's only object, when it has exactly one.

An answer that matches no option exactly is matched to the one option whose words contain it
or are contained in it ("storage locker" -> "Locker", "ruler" -> "Plate and ruler").
Every rewrite is listed in the item's explanation. Contradicted labels are classified:
``gold option not in the story`` (the option names a thing the English story never mentions: a
translation mismatch) or ``unexplained``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from beliefgraph.api import track
from beliefgraph.errors import BeliefGraphError, UnsupportedQuestionError
from beliefgraph.graph import BeliefGraph
from beliefgraph.grounding import LLMGrounder, RowEvidence, StoryGrounding, negated
from beliefgraph.grounding.freeform import FreeQuestion, choose_by_access, ground_questions
from beliefgraph.models import Answer
from beliefgraph.questions import read_question

from .benchmark import Benchmark, benchmarks
from .choices import match_choice, normalise
from .item import Item, ItemResult
from .loading import Problems, require_utf8, strict_if_none, text_lines
from .reading import chosen_client, chosen_llm

__all__ = [
    "OFFLINE_TASKS",
    "abilities",
    "direct_messages",
    "free_questions",
    "load_tombench",
    "make_tombench",
    "paper_figures",
    "parse_record",
    "read_direct",
]

OFFLINE_TASKS = frozenset({"False Belief Task", "Percepts-Knowledge Links"})
"""The task files whose stories the offline rules parser reads."""

# The release's task of each ability that only one task file holds (release 4f491f0), so a
# record in a renamed or cut file still finds its task; "Intentions explanations",
# "Irony/Sarcasm" and "Beliefs based action/emotions" appear in several and name none.
_ABILITY_TASK = {
    **dict.fromkeys(
        ("Belief: Location false beliefs", "Belief: Content false beliefs",
         "Belief: Second-order beliefs"), "False Belief Task"),
    **dict.fromkeys(
        ("Belief: Identity false beliefs", "Desire: Desire-action contradiction",
         "Emotion: Mixed emotions", "Non-Literal Communication: Involuntary lies",
         "Non-Literal Communication: Egocentric lies", "Non-Literal Communication: Humor",
         "Non-Literal Communication: White lies"), "Strange Story Task"),
    **dict.fromkeys(
        ("Belief: Sequence false beliefs", "Emotion: Atypical emotional reactions",
         "Emotion: Typical emotional reactions"), "Unexpected Outcome Test"),
    **dict.fromkeys(
        ("Desire: Desires influence on actions",
         "Desire: Desires influence on emotions (beliefs)"), "Persuasion Story Task"),
    "Desire: Discrepant desires": "Discrepant Desires",
    "Desire: Multiple desires": "Multiple Desires",
    "Emotion: Discrepant emotions": "Discrepant Emotions",
    "Emotion: Emotion regulation": "Emotion Regulation",
    "Emotion: Hidden emotions": "Hidden Emotions",
    "Emotion: Moral emotions": "Moral Emotions",
    "Intention: Completion of failed actions": "Completion of Failed Actions",
    "Intention: Discrepant intentions": "Discrepant Intentions",
    "Intention: Prediction of actions": "Prediction of Actions",
    "Knowledge: Information-knowledge links": "Scalar Implicature Test",
    "Knowledge: Knowledge-attention links": "Knowledge-Attention Links",
    "Knowledge: Knowledge-pretend play links": "Knowledge-Pretend Play Links",
    "Knowledge: Percepts-knowledge links": "Percepts-Knowledge Links",
    "Non-Literal Communication: Faux pas": "Faux-pas Recognition Test",
}  # fmt: skip
_TASKS = frozenset(_ABILITY_TASK.values()) | {"Ambiguous Story Task", "Hinting Task Test"}


def _task_of(record: dict[str, Any], path: Path) -> str:
    """The record's task: its own ``task`` field, else the file's stem when that names a
    task, else the one task its ability belongs to, else the stem (a renamed file of
    False Belief records is still read as the False Belief Task)."""
    for key, value in record.items():
        named = key.rsplit("\n", 1)[-1].strip().lower() == "task"
        if named and isinstance(value, str) and value.strip():
            return value.strip()
    if path.stem in _TASKS:
        return path.stem
    ability = record.get(_ABILITY)
    found = (
        {_ABILITY_TASK.get(a) for a in abilities(ability)} if isinstance(ability, str) else set()
    )
    return found.pop() if len(found) == 1 and None not in found else path.stem


NOT_IN_STORY = "gold option not in the story"
UNEXPLAINED = "unexplained"

_STORY, _QUESTION = "STORY", "QUESTION"
_ANSWER, _ABILITY, _INDEX = "答案\nANSWER", "能力\nABILITY", "序号\nINDEX"
_LETTERS = "ABCD"
_GOLD = re.compile(r"^\s*([A-D])(?:[.．、:)]\s*)?$")
_PREFIX = re.compile(r"^([A-D])[.．、]\s*")


def parse_record(line: str) -> dict[str, Any]:
    """Decode one JSONL line, reading bare ``NaN`` / ``Infinity`` tokens as null.

    Raises ``ValueError`` for a line that is not a JSON object.

    Examples
    --------
    >>> parse_record('{"OPTION-C": NaN, "QUESTION": "Is NaN a word?"}')
    {'OPTION-C': None, 'QUESTION': 'Is NaN a word?'}
    """
    record = json.loads(line, parse_constant=lambda _name: None)
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, got {type(record).__name__}")
    return record


def load_tombench(path: Path, problems: Problems | None = None) -> list[Item]:
    """Read one ToMBench task file, or every ``.jsonl`` file in a folder, into items.

    Ids are ``<file stem>:<line>:<INDEX>`` (``INDEX`` restarts with every story, so the line
    makes the id unique). ``meta`` holds ``task`` (the record's own, else the file stem when it
    names a task, else the task of its ability: ``_task_of``), ``ability``, ``index``,
    ``letters`` (the letter of each kept option), ``file`` and ``line``.

    Raises
    ------
    DataFormatError
        For a folder without ``.jsonl`` files, or a line that is not a JSON object, lacks the
        story, question, options A/B or answer, or has an answer that is not the letter of a
        present option (naming the file and line; with ``problems`` given, a bad line is
        collected there and the rest is read).
    """
    problems = strict_if_none(problems)
    if path.is_dir():
        return problems.folder(path, "*.jsonl", load_tombench, "ToMBench")
    items = []
    for lineno, raw in text_lines(path):
        if not raw.strip():
            continue
        with problems.record(path, lineno):
            require_utf8(raw, "the line")
            items.append(_item(parse_record(raw), path, lineno))
    return problems.result(_with_siblings(items))


def _with_siblings(items: list[Item]) -> list[Item]:
    """Give each item its story's questions (``meta["questions"]``, in file order): the LLM
    path grounds the story's free-form questions in one call."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for i in items:
        groups.setdefault(_story_key(i), []).append(
            {"question": i.question, "choices": list(i.choices)}
        )
    return [
        i.model_copy(update={"meta": {**i.meta, "questions": groups[_story_key(i)]}}) for i in items
    ]


def _item(record: dict[str, Any], path: Path, lineno: int) -> Item:
    for key in (_STORY, _QUESTION):
        if not isinstance(record.get(key), str) or not record[key].strip():
            raise ValueError(f"missing or empty field {key!r}")
    letters, choices = [], []
    for letter in _LETTERS:
        option = record.get(f"OPTION-{letter}")
        if option is None:
            continue
        if not isinstance(option, str):
            raise ValueError(f"OPTION-{letter} should be text or NaN, got {option!r}")
        if (m := _PREFIX.match(option)) and m[1] == letter:
            option = option[m.end() :]  # "A. Yes" -> "Yes"
        letters.append(letter)
        choices.append(option.strip())
    if letters[:2] != ["A", "B"]:
        raise ValueError("options A and B are required")
    gold = record.get(_ANSWER)
    m = _GOLD.match(gold) if isinstance(gold, str) else None
    if m is None or m[1] not in letters:
        raise ValueError(f"the answer {gold!r} is not the letter of a present option {letters}")
    index = record.get(_INDEX)
    ability = record.get(_ABILITY)
    meta = {
        "task": _task_of(record, path),
        "ability": ability.strip() if isinstance(ability, str) else "unknown",
        "index": index,
        "letters": tuple(letters),
        "file": path.name,
        "line": lineno,
    }
    return Item(
        id=f"{path.stem}:{lineno}:{index}",
        story=record[_STORY].strip(),
        question=record[_QUESTION].strip(),
        choices=tuple(choices),
        answer=m[1],
        meta=meta,
    )


# -- building and answering ------------------------------------------------------------------
class _Run:
    """One evaluation's state: the grounding of each story's free-form questions."""

    def __init__(self) -> None:
        self.evidence: dict[
            str, tuple[list[FreeQuestion], list[list[RowEvidence]], StoryGrounding]
        ] = {}
        self.failed: dict[str, str] = {}

    def build(self, item: Item) -> BeliefGraph:
        task = item.meta.get("task")
        if task not in OFFLINE_TASKS and chosen_llm() is None:
            raise UnsupportedQuestionError(
                f"ToMBench task {task!r} ({item.meta.get('ability')}) is not answered offline: "
                "the rules parser reads the False Belief Task's stories only; use an LLM parser"
            )
        # The parse first: a pending answer leaves it unread without raising, so the
        # grounding request (independent of it) goes into the same batch round.
        graph = track(item.story, strict=False)
        client = chosen_client()
        free = free_questions(item)
        if client is not None and free:
            key = _story_key(item)
            try:
                grounding, evidence = ground_questions(
                    LLMGrounder(client), item.story, _names(item), free
                )
            except BeliefGraphError as err:  # pending or failed: the questions say why
                self.failed[key] = str(err)
            else:
                self.evidence[key] = (free, evidence, grounding)
        return graph

    def answer(self, item: Item, graph: BeliefGraph) -> ItemResult:
        try:
            read_question(_lead_in_first(item.question))
        except UnsupportedQuestionError:
            if chosen_client() is not None:
                return self._free(item, graph)
        return _answer(item, graph)

    def _free(self, item: Item, graph: BeliefGraph) -> ItemResult:
        key = _story_key(item)
        if key in self.failed:
            raise BeliefGraphError(f"the question's grounding is missing: {self.failed[key]}")
        free, evidence, grounding = self.evidence[key]
        n = next(j for j, q in enumerate(free) if q.text == item.question)
        choice = choose_by_access(graph, free[n], evidence[n], grounding)
        letters: tuple[str, ...] = tuple(item.meta.get("letters", _LETTERS[: len(item.choices)]))
        prediction = letters[choice.index] if choice.index is not None else None
        return ItemResult(
            id=item.id,
            gold=item.answer,
            prediction=prediction,
            correct=prediction == item.answer,
            explanation=(
                "The question is not one the question module reads; its options were "
                "grounded in the story and chosen by the holder's access in the graph.",
                *choice.explanation,
            ),
            breakdown={
                "ability": str(item.meta.get("ability", "unknown")),
                "task": str(item.meta.get("task", "unknown")),
            },
        )


_FUNCTION_WORDS = (
    "a an the on in at of to and but or so then after before when while this that these those "
    "he she it they we you i his her its their our my your him them me us what where who why "
    "how which does do is are was were will would can could one once suddenly finally later "
    "meanwhile now here there oh yes no okay ok hello hi mr mrs ms dr"
)
_NOT_NAMES = frozenset(_FUNCTION_WORDS.split())


def _names(item: Item) -> list[str]:
    """The story's people as the text names them (capitalised runs that are not function
    words), read from the text alone so the grounding request does not wait for the parse."""
    out: list[str] = []
    # Outside quotations: what people say ("Look at that!") names nobody new.
    narration = re.sub(r"\"[^\"]*\"|“[^”]*”", " ", item.story)
    for m in _CAPITALISED_RUN.finditer(narration):
        words = m[0].split()
        while words and words[0].lower() in _NOT_NAMES:
            words = words[1:]
        if words and " ".join(words) not in out:
            out.append(" ".join(words))
    return out


def free_questions(item: Item) -> list[FreeQuestion]:
    """The story's questions the question module does not read, as free-form questions
    (holder: the first of the story's names the question mentions)."""
    names = _names(item)
    out = []
    for q in item.meta.get("questions") or [
        {"question": item.question, "choices": list(item.choices)}
    ]:
        text = str(q["question"])
        try:
            read_question(_lead_in_first(text))
            continue
        except UnsupportedQuestionError:
            pass
        holder = next((n for n in names if re.search(rf"\b{re.escape(n)}\b", text)), None)
        out.append(FreeQuestion(text=text, options=tuple(q["choices"]), holder=holder))
    return out


def _answer(item: Item, graph: BeliefGraph) -> ItemResult:
    answer, notes = _ask(graph, item.question)
    index, how = _match(answer.value, item.choices)
    if index is None and answer.value in ("yes", "no"):
        index, how = _knows_option(answer.value, item, graph)
    letters: tuple[str, ...] = tuple(item.meta.get("letters", _LETTERS[: len(item.choices)]))
    prediction = letters[index] if index is not None else None
    explanation = (*notes, *answer.explanation)
    if how:
        explanation = (*explanation, how)
    correct = prediction == item.answer
    disagreement = None
    if prediction is None:
        explanation = (*explanation, f"{answer.value!r} is none of the options {item.choices}.")
    if not correct and answer.value is not None:
        disagreement = _classify(item)
    return ItemResult(
        id=item.id,
        gold=item.answer,
        prediction=prediction,
        correct=correct,
        explanation=explanation,
        breakdown={
            "ability": str(item.meta.get("ability", "unknown")),
            "task": str(item.meta.get("task", "unknown")),
        },
        supported=True if correct else (False if disagreement == NOT_IN_STORY else None),
        disagreement=disagreement,
    )


def _knows_option(value: str, item: Item, graph: BeliefGraph) -> tuple[int | None, str | None]:
    """A yes/no answer to "Does X know where T is?" as ToMBench words its options: "no" is
    the one option that denies knowing ("Does not know"); "yes" the one affirming option that
    names where T really is ("Knows, in the box"), asked of the graph."""
    if value == "no":
        denials = [i for i, c in enumerate(item.choices) if negated(c)]
        if len(denials) != 1:
            return None, None
        return denials[0], f"'no' is the option denying it, {item.choices[denials[0]]!r}."
    try:
        target = read_question(_lead_in_first(item.question)).target
        where = graph.ask(f"Where is the {target} now?").value
    except BeliefGraphError:
        return None, None
    positive = [(i, c) for i, c in enumerate(item.choices) if not negated(c)]
    j, _ = _match(where, tuple(c for _, c in positive))
    if j is None:
        return None, None
    i = positive[j][0]
    return i, f"'yes', and the {target} is in the {where}: {item.choices[i]!r}."


def _ask(graph: BeliefGraph, question: str) -> tuple[Answer, tuple[str, ...]]:
    """Ask ``question`` as the story words it; the notes list every rewrite."""
    notes: list[str] = []
    q = _lead_in_first(question)
    q = _rename_holders(q, graph)
    try:
        answer = graph.ask(q)
    except UnsupportedQuestionError:
        renamed = _rename_object(q, graph)
        if renamed is None:
            raise
        q = renamed
        answer = graph.ask(q)
    if q != question:
        notes.append(f"Read the question as {q!r}.")
    return answer, tuple(notes)


_TRAILING_AFTER = re.compile(
    r"^(?P<main>(?:where|what)\b.+?),?\s+after\s+(?P<clause>[A-Z].+?)\s*\?*$", re.I
)


_SPLICED_RETURN = re.compile(
    r"^(?P<clause>[A-Z][\w' -]*?\s(?:returns|comes back|came back|returned)\b[^,?]*),\s*"
    r"(?P<main>(?:does|do|is|are|where|what|will)\b.+)$"
)


def _lead_in_first(question: str) -> str:
    """ "Where does A look for X after B returns?" -> "After B returns, where does A look for X?"

    The comma-spliced form of the translation ("B returns to the R, does B know ...?") gets
    its missing "After" too.

    Examples
    --------
    >>> _lead_in_first("Where does Youyou look for the button after Li Lei returns?")
    'After Li Lei returns, where does Youyou look for the button?'
    >>> _lead_in_first("Xiao Li returns to the bank, does Xiao Li know where the chalk is?")
    'After Xiao Li returns to the bank, does Xiao Li know where the chalk is?'
    """
    if (spliced := _SPLICED_RETURN.match(question.strip())) is not None:
        return f"After {spliced['clause']}, {spliced['main']}"
    m = _TRAILING_AFTER.match(question.strip())
    if m is None or question.strip().lower().startswith("after "):
        return question
    main = m["main"][0].lower() + m["main"][1:]
    return f"After {m['clause']}, {main}?"


_CALQUES = {"red": "hong", "north": "bei"}
"""English renderings of name syllables in ToMBench's translation (小红 "Xiao Red")."""
_CAPITALISED_RUN = re.compile(r"(?<![\w'])[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*")


def _name_key(name: str) -> str:
    return "".join(_CALQUES.get(w, w) for w in re.split(r"[\s-]+", name.strip().lower()))


def _rename_holders(question: str, graph: BeliefGraph) -> str:
    """Rename spellings of the story's actors in ``question`` to the story's own."""
    actors = {_name_key(a): a for a in graph.actors}

    def rename(m: re.Match[str]) -> str:
        words = m[0].replace("-", " - ").split(" ")
        out: list[str] = []
        i = 0
        while i < len(words):
            for j in range(len(words), i, -1):
                actor = actors.get(_name_key(" ".join(words[i:j])))
                if actor is not None:
                    out.append(actor)
                    i = j
                    break
            else:
                out.append(words[i])
                i += 1
        return " ".join(out).replace(" - ", "-")

    return _CAPITALISED_RUN.sub(rename, question)


def _rename_object(question: str, graph: BeliefGraph) -> str | None:
    """Replace an object the story never names by the story's only object, if it has one."""
    try:
        target = read_question(question).target
    except UnsupportedQuestionError:
        return None
    objects = {e.name for e in graph.story.entities if e.kind == "object"}
    if len(objects) != 1:
        return None
    (only,) = objects
    if normalise(only) == normalise(target):
        return None
    renamed = re.sub(rf"\b{re.escape(target)}\b", only, question, count=1)
    return renamed if renamed != question else None


def _match(value: str | None, choices: tuple[str, ...]) -> tuple[int | None, str | None]:
    """The option naming ``value``: exactly, else the only one sharing all words one way."""
    index = match_choice(value, choices)
    if index is not None or value is None:
        return index, None
    words = set(normalise(value).split())
    near = [
        i
        for i, c in enumerate(choices)
        if (opt := set(normalise(c).split())) and (opt <= words or words <= opt)
    ]
    if len(near) != 1:
        return None, None
    return near[0], f"{value!r} matched to the option {choices[near[0]]!r} by its words."


def _classify(item: Item) -> str:
    """Name the way a label departs from the story."""
    gold = item.choices[tuple(item.meta.get("letters", _LETTERS)).index(item.answer)]
    story = {normalise(w) for w in re.findall(r"[A-Za-z]+", item.story)}
    if not all(normalise(w) in story for w in re.findall(r"[A-Za-z]+", gold)):
        return NOT_IN_STORY
    return UNEXPLAINED


def _story_key(item: Item) -> str:
    return f"{item.meta.get('task')}\n{item.story}"


# -- the paper's figures ---------------------------------------------------------------------
_DOUBLE = re.compile(
    r"\s+(?=(?:Belief|Desire|Emotion|Intention|Knowledge|Non-[Ll]iteral [Cc]ommunication):)"
)


def abilities(raw: str) -> tuple[str, ...]:
    """The paper's abilities of a record's ``ABILITY`` label.

    The release's labels are normalised: whitespace trimmed, the category written one way
    ("Non-literal communication" is "Non-Literal Communication"), and a label naming two
    abilities ("Belief: Location false beliefs Belief: Second-order beliefs") split, so the
    item counts towards both.

    >>> abilities("Belief: Location false beliefs Belief: Second-order beliefs")
    ('Belief: Location false beliefs', 'Belief: Second-order beliefs')
    >>> abilities("Non-literal communication: Humor "), abilities("Knowledge: x ")
    (('Non-Literal Communication: Humor',), ('Knowledge: x',))
    """
    out = []
    for part in _DOUBLE.split(raw.strip()):
        category, _, name = part.partition(":")
        category = (
            "Non-Literal Communication" if category.lower().startswith("non-literal") else category
        )
        out.append(f"{category.strip()}: {name.strip()}" if name else part.strip())
    return tuple(dict.fromkeys(out))


def _story_of(result: ItemResult) -> str:
    # Ids are "task:line:index" and INDEX counts a story's questions from 1 on consecutive
    # lines, so a story is named by the line of its first question.
    task, line, index = result.id.rsplit(":", 2)
    try:
        return f"{task}:{int(line) - int(index) + 1}"
    except ValueError:
        return result.id


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def paper_figures(results: list[ItemResult]) -> dict[str, float]:
    """The paper's summary figures from item results (an unanswered item is wrong).

    ``task_average`` (the mean of the per-task accuracies), ``ability_average`` (the mean of
    the per-ability accuracies, abilities as ``abilities`` reads them) and ``coherent`` (the
    share of stories whose every question is right), each also per task
    (``task/<task>``, ``coherent/<task>``) and per ability (``ability/<ability>``).
    """
    by_task: dict[str, list[bool]] = {}
    by_ability: dict[str, list[bool]] = {}
    stories: dict[str, list[bool]] = {}
    story_task: dict[str, str] = {}
    for r in results:
        task = r.breakdown.get("task", "unknown")
        by_task.setdefault(task, []).append(r.correct)
        for a in abilities(r.breakdown.get("ability", "unknown")):
            by_ability.setdefault(a, []).append(r.correct)
        s = _story_of(r)
        stories.setdefault(s, []).append(r.correct)
        story_task[s] = task
    out = {f"task/{t}": _mean([float(c) for c in v]) for t, v in sorted(by_task.items())}
    out.update(
        {f"ability/{a}": _mean([float(c) for c in v]) for a, v in sorted(by_ability.items())}
    )
    out["task_average"] = _mean([out[f"task/{t}"] for t in by_task])
    out["ability_average"] = _mean([out[f"ability/{a}"] for a in by_ability])
    whole = {s: float(all(v)) for s, v in stories.items()}
    out["coherent"] = _mean(list(whole.values()))
    for t in sorted(by_task):
        out[f"coherent/{t}"] = _mean([w for s, w in whole.items() if story_task[s] == t])
    return out


class _PaperMetrics(Mapping[str, Callable[[list[ItemResult]], float]]):
    """``task_average``, ``ability_average`` and ``coherent`` (per-task and per-ability
    figures are in ``paper_figures``; the harness's ``by`` tables hold the raw groups)."""

    _NAMES = ("task_average", "ability_average", "coherent")

    def __getitem__(self, name: str) -> Callable[[list[ItemResult]], float]:
        if name not in self._NAMES:
            raise KeyError(name)
        return lambda results: paper_figures(results)[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._NAMES)

    def __len__(self) -> int:
        return len(self._NAMES)


# -- same model, directly -------------------------------------------------------------------
DIRECT_PROMPT_ID = "tombench.release.en.v1"
"""The release's English evaluation prompts (``prompts.py``, commit 2c27b14; MIT)."""

SYSTEM_PROMPT_EN = """\
Below is a multiple-choice question with a story and serveral answer options. Based on the content of the story and the given question, please infer the most likely answer and output the answer index.
Note:
(1) Please only output the most likely answer index in the format: [[Answer Index]], for example, if the most likely answer option is 'A. Handbag', then output '[[A]]';
(2) You must choose one of the given answer options 'A, B, C, D' as the most likely answer, regardless of whether the story provides enough information. If you think there is not enough information in the story to choose an answer, please randomly output one of "[[A]]", "[[B]]", "[[C]]", or "[[D]]";
(3) Please only output the most likely answer index based on the given information, and do not output any other content."""  # noqa: E501
"""``SystemEvaluatePrompt_en``, verbatim (its typo included)."""


def direct_messages(item: Item) -> list[dict[str, str]]:
    """The release's English prompt for one item: system prompt, story, question, options.

    The release shuffles the options (seed 42, five tries per item); this asks once, with
    the options in the file's order.
    """
    letters = tuple(item.meta.get("letters", _LETTERS[: len(item.choices)]))
    options = "\n".join(f"{x}. {c}" for x, c in zip(letters, item.choices, strict=True))
    user = f"[Story]\n{item.story}\n\n[Question]\n{item.question}\n\n[Candidate Answers]\n{options}"
    return [{"role": "system", "content": SYSTEM_PROMPT_EN}, {"role": "user", "content": user}]


def read_direct(reply: str, item: Item) -> str | None:
    """The option a reply names: "[[X]]" as the release reads it, else a bare letter.

    >>> item = Item(id="x", story="", question="", choices=("a", "b"), answer="A",
    ...             meta={"letters": ("A", "B")})
    >>> read_direct("[[B]]", item), read_direct("A", item), read_direct("[[C]]", item)
    ('B', 'A', None)
    """
    letters = tuple(item.meta.get("letters", _LETTERS[: len(item.choices)]))
    m = re.search(r"\[\[\s*([A-D])\s*\]\]", reply)
    got = m[1] if m else reply.strip().strip(".").upper()
    return got if got in letters else None


def _breakdown(item: Item) -> dict[str, str]:
    return {
        "ability": str(item.meta.get("ability", "unknown")),
        "task": str(item.meta.get("task", "unknown")),
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
            breakdown=_breakdown(item),
        )


@benchmarks.register("tombench")
def make_tombench(direct: bool = False) -> Benchmark:
    """The ToMBench adapter (``direct=True``: the same model asked the release's prompt)."""
    if direct:
        from .direct import make_direct

        return make_direct(make_tombench(), _Direct())
    run = _Run()
    return Benchmark(
        name="tombench",
        load=load_tombench,
        build=run.build,
        answer=run.answer,
        breakdowns=("ability", "task"),
        metrics=_PaperMetrics(),
        headline="task_average",  # the paper's AVG: the mean of the per-task accuracies
        story_key=_story_key,
    )
