"""ToMATO (Shinoda et al., 2025): multiple-choice questions on LLM-LLM conversations.

Each conversation was generated with Inner Speech prompting: before every utterance the
speaker verbalised a hidden thought (agent A first-order, "I feel ..."; agent B
second-order, "I think that she feels ..."). A question asks for the speaker's thought at
one utterance (the anchor); the three distractors are the same speaker's thoughts at other
turns of the same conversation (seed 002, §4; the release's ``run_generate_tomato.py``).

- ``load_tomato`` reads the released JSON list (``tomato.json``, ``tomato_first.json``,
  ``tomato_second.json``, ``tomato_fb.json``, or a folder of them), ``transcript`` accepted
  as an alias of ``conversation``.
- ``parse_question`` reads the ten templates (five mental states x two orders, two
  phrasings each): holder, target, mental state, order and the anchor utterance.
- The graph: every line is a public utterance heard by both speakers
  (``adapters.dialogue``). The offline scorer aligns each option with the holder's
  perspective at each of the holder's turns (the utterance the thought preceded and the
  last turn the holder had heard, minus words the holder could not have heard yet) and
  picks the option most probably anchored at the asked turn. ``similarity="embedding"``
  does the same with all-MiniLM-L6-v2 sentence embeddings when that package is installed.
- Baseline: the paper's lexical overlap (the option sharing most words with the question).
- ``ToMATOLLMScorer`` shows a model only the turns the holder had perceived by the anchor.
- ``make_tomato(direct=True)``: the same-model direct baseline, each question asked in the
  paper's evaluation prompt (App. C, "Chat Messages with System Prompt": the whole
  transcript, the question, options ``[A]``..``[D]``), the reply read as the release's
  ``extract_answer_from_response`` reads it (``[X]``), scored by the same scorer.
- ``make_tomato(dialogues=N)``: only the questions of the first N conversations of the file
  (an item-blind sample).

Breakdowns follow the paper: mental state x order (Table 3), the false-belief subset, and
each Big Five factor high / low per order (Tables 5 and 11).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from beliefgraph.dialogue import perceived_turns
from beliefgraph.errors import BeliefGraphError, DataFormatError, UnsupportedQuestionError
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Belief, BeliefModel, Proposition
from beliefgraph.parsers.llm.dialogue import Turn

from .benchmark import Benchmark, benchmarks
from .dialogue import (
    LLMOptionScorer,
    Tally,
    content_words,
    first_dialogues,
    idf_weights,
    letter_reply,
    run_dialogue_graph,
    tokens,
    turn_words,
)
from .item import Item, ItemResult
from .loading import Problems, read_text, require_utf8, strict_if_none

__all__ = [
    "MENTAL_STATES",
    "ToMATOLLMScorer",
    "ToMATOQuestion",
    "align_options",
    "conversation_turns",
    "direct_messages",
    "lexical_overlap_choice",
    "load_tomato",
    "make_tomato",
    "make_tomato_llm",
    "option_beliefs",
    "parse_question",
]

MentalState = Literal["belief", "intention", "desire", "emotion", "knowledge"]
MENTAL_STATES: tuple[str, ...] = ("belief", "intention", "desire", "emotion", "knowledge")
BIG_FIVE = {
    "openness to experience": "O",
    "conscientiousness": "C",
    "extraversion": "E",
    "agreeableness": "A",
    "neuroticism": "N",
}
REQUIRED = ("a0", "a1", "a2", "a3", "a_idx", "q", "q_id")
FILES = ("tomato.json", "tomato_first.json", "tomato_second.json", "tomato_fb.json")
GREETING_LINES = 2
"""The release numbers utterances (``u_id``) after the two greeting lines ("Hi!")."""
_ORDER_NAME = {1: "1st", 2: "2nd"}
_CONTENT_TYPE = {
    "belief": "Epistemic",
    "knowledge": "Epistemic",
    "intention": "Desire/Intention",
    "desire": "Desire/Intention",
    "emotion": "Emotion",
}
_RELATION = {
    "belief": "think",
    "knowledge": "know",
    "intention": "will",
    "desire": "want",
    "emotion": "feel",
}


# -- questions -----------------------------------------------------------------------------
class ToMATOQuestion(BeliefModel):
    """A ToMATO question, read from its template.

    Examples
    --------
    >>> q = parse_question('How does Ethan think that Liam feels when he says "Man, thanks."?')
    >>> q.holder, q.target, q.mental_state, q.order, q.utterance
    ('Ethan', 'Liam', 'emotion', 2, 'Man, thanks.')
    """

    holder: str
    """Who holds the mental state: the speaker of the anchor utterance (first name)."""
    target: str
    """Whose mental state it is about: the other speaker (2nd order) or the holder (1st)."""
    mental_state: MentalState
    order: Literal[1, 2]
    utterance: str
    """The anchor utterance, without its quotes."""
    phrasing: Literal["when-first", "when-last"]
    """``When X says "…", what …?`` or ``What … when he says "…"?``."""


_VERBS: dict[str, MentalState] = {
    "think": "belief",
    "thinks": "belief",
    "want": "desire",
    "wants": "desire",
    "know": "knowledge",
    "knows": "knowledge",
    "feel": "emotion",
    "feels": "emotion",
    "will do": "intention",
}
_PRONOUN = r"(?:he|she|they)"
_NAME = r"[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)*"
_WHEN_FIRST = re.compile(rf'^When (?P<holder>{_NAME}) says "(?P<u>.*)", (?P<rest>.+?)\?$', re.S)
_WHEN_LAST = re.compile(rf'^(?P<rest>.+?) when {_PRONOUN} says "(?P<u>.*)"\?$', re.S)
_RESTS = (  # (pattern, order); groups: holder (optional), target (optional), verb
    (
        re.compile(
            rf"^[Hh]ow does (?:{_PRONOUN}|(?P<holder>{_NAME})) think that "
            rf"(?P<target>{_NAME}) (?P<verb>feels)$"
        ),
        2,
    ),
    (
        re.compile(
            rf"^[Ww]hat does (?P<holder>{_NAME}) think that (?P<target>{_NAME}) "
            r"(?P<verb>will do|thinks|wants|knows)$"
        ),
        2,
    ),
    (re.compile(rf"^[Hh]ow does (?:{_PRONOUN}|(?P<holder>{_NAME})) (?P<verb>feel)$"), 1),
    (re.compile(rf"^[Ww]hat will (?P<holder>{_NAME}) (?P<verb>do)$"), 1),
    (re.compile(rf"^[Ww]hat does (?P<holder>{_NAME}) (?P<verb>think|want|know)$"), 1),
)


def parse_question(question: str) -> ToMATOQuestion:
    """Read holder, target, mental state, order and anchor utterance from a ToMATO question.

    Raises
    ------
    UnsupportedQuestionError
        For a question that fits none of the ten templates.

    Examples
    --------
    >>> q = parse_question('When Benjamin says "Hey, Ethan!", what will Benjamin do?')
    >>> q.holder, q.target, q.mental_state, q.order
    ('Benjamin', 'Benjamin', 'intention', 1)
    """
    q = " ".join(question.split())
    m = _WHEN_FIRST.match(q)
    phrasing: Literal["when-first", "when-last"] = "when-first"
    if m is None:
        m = _WHEN_LAST.match(q)
        phrasing = "when-last"
    if m is None:
        raise UnsupportedQuestionError(
            f'not a ToMATO question: {question!r}; expected \'When X says "...", what does X '
            "think that Y thinks?' or 'What does X think that Y thinks when he says \"...\"?'"
        )
    rest = m["rest"]
    for pattern, order in _RESTS:
        r = pattern.match(rest)
        if r is None:
            continue
        holder = r.groupdict().get("holder") or m.groupdict().get("holder")
        if holder is None:
            break
        verb = r["verb"]
        state: MentalState = "intention" if verb in ("do", "will do") else _VERBS[verb]
        target = r.groupdict().get("target") or holder
        return ToMATOQuestion(
            holder=holder,
            target=target,
            mental_state=state,
            order=order,
            utterance=m["u"].strip(),
            phrasing=phrasing,
        )
    raise UnsupportedQuestionError(
        f"ToMATO question with an unknown mental-state clause {rest!r}: {question!r}"
    )


# -- loading -------------------------------------------------------------------------------
def load_tomato(path: Path, problems: Problems | None = None) -> list[Item]:
    """Read a ToMATO release file, or a folder holding some of them.

    A folder is read as the full set (``tomato.json``) when present, else as the
    first- and second-order files, else as ``tomato_fb.json``; duplicate ``q_id``s are kept
    once. ``transcript`` is accepted for ``conversation``.

    Raises
    ------
    DataFormatError
        For a missing file, a file that is not a JSON list, or a record without a required
        key or whose question fits no template (naming the file and record index; with
        ``problems`` given, a bad record is collected there and the rest is read).
    """
    problems = strict_if_none(problems)
    path = Path(path)
    if path.is_dir():
        names = [n for n in FILES if (path / n).is_file()]
        if not names:
            found = path / "dataset"
            if found.is_dir():
                return load_tomato(found)
            raise DataFormatError(f"{path}: no ToMATO file here (expected one of {FILES})")
        if "tomato.json" in names:
            names = ["tomato.json"]
        elif {"tomato_first.json", "tomato_second.json"} & set(names):
            names = [n for n in names if n != "tomato_fb.json"]
        items: dict[str, Item] = {}
        for n in names:
            with problems.record(path / n):
                for item in load_tomato(path / n, problems):
                    items.setdefault(item.id, item)
        return problems.result(items.values())
    try:
        records = json.loads(read_text(path))
    except json.JSONDecodeError as err:
        raise DataFormatError(f"{path}: not JSON ({err})") from None
    if not isinstance(records, list):
        raise DataFormatError(f"{path}: expected a JSON list of questions, got {type(records)}")
    out = []
    for i, r in enumerate(records):
        with problems.record(path):
            out.append(_item(path, i, r))
    return problems.result(out)


def _item(path: Path, index: int, r: Any) -> Item:
    where = f"{path}: record {index}"
    if not isinstance(r, dict):
        raise DataFormatError(f"{where}: expected an object, got {type(r).__name__}")
    conversation = r.get("conversation", r.get("transcript"))
    missing = [k for k in REQUIRED if k not in r]
    if conversation is None:
        missing.append("conversation (or transcript)")
    if missing:
        raise DataFormatError(f"{where} ({r.get('q_id', '?')}): missing {', '.join(missing)}")
    require_utf8(r, where)
    choices = tuple(str(r[f"a{i}"]) for i in range(4))
    a_idx = r["a_idx"]
    if isinstance(a_idx, str) and a_idx.strip().isdigit():
        a_idx = int(a_idx)
    if not isinstance(a_idx, int) or isinstance(a_idx, bool) or not 0 <= a_idx <= 3:
        raise DataFormatError(f"{where}: a_idx {a_idx!r} is not 0-3 (expected one option index)")
    gold = choices[a_idx]
    try:
        q = parse_question(str(r["q"]))
    except UnsupportedQuestionError as err:
        raise DataFormatError(f"{where}: {err}") from None
    state = r.get("mental_state", q.mental_state)
    order = int(r.get("order", q.order))
    meta: dict[str, Any] = {
        "file": path.name,
        "mental_state": state,
        "order": order,
        "false_belief": bool(r.get("false_belief", False)),
        "big_five": _big_five(r.get("big_five")),
        "u_id": r.get("u_id"),
        "holder": q.holder,
        "target": q.target,
        "utterance": q.utterance,
        "phrasing": q.phrasing,
        "sotopia_agents": r.get("sotopia_agents"),
        "sotopia_environment": r.get("sotopia_environment"),
    }
    return Item(
        id=str(r["q_id"]),
        story=str(conversation),
        question=str(r["q"]),
        choices=choices,
        answer=gold,
        meta=meta,
    )


def _big_five(text: Any) -> dict[str, str]:
    """``"Openness to Experience - Low; ..."`` -> ``{"O": "low", ...}``."""
    out: dict[str, str] = {}
    if isinstance(text, dict):
        text = "; ".join(f"{k} - {v}" for k, v in text.items())
    for part in str(text or "").split(";"):
        name, _, level = part.partition(" - ")
        key = BIG_FIVE.get(name.strip().lower())
        if key and level.strip().lower() in ("high", "low"):
            out[key] = level.strip().lower()
    return out


# -- the graph -----------------------------------------------------------------------------
_LINE = re.compile(r"^\s*(?P<name>[^:\"]{1,60}?)\s*:\s*(?P<body>.*)$")


def conversation_turns(conversation: str) -> list[Turn]:
    """The turns of a ToMATO conversation (``Name: "utterance"`` per line, quotes dropped).

    A line without a speaker continues the previous turn.

    Examples
    --------
    >>> [(t.speaker, t.text) for t in conversation_turns('Liam J: "Hi!"\\nEthan J: "Hey."')]
    [('Liam J', 'Hi!'), ('Ethan J', 'Hey.')]
    """
    turns: list[Turn] = []
    for raw in conversation.splitlines():
        if not raw.strip():
            continue
        m = _LINE.match(raw)
        if m is None and turns:
            last = turns[-1]
            turns[-1] = Turn(last.speaker, f"{last.text} {raw.strip()}")
            continue
        if m is None:
            raise DataFormatError(f"conversation line names no speaker: {raw.strip()!r}")
        turns.append(Turn(m["name"].strip(), _unquote(m["body"])))
    return turns


def _unquote(text: str) -> str:
    text = " ".join(text.split())
    if len(text) >= 2 and text[0] in '"“' and text[-1] in '"”':
        return text[1:-1].strip()
    return text


def _build(item: Item) -> BeliefGraph:
    return run_dialogue_graph(conversation_turns(item.story))


def _speaker(graph: BeliefGraph, first_name: str) -> str:
    """The full speaker name a question's first name refers to."""
    for actor in graph.actors:
        if actor == first_name or actor.split()[0] == first_name:
            return actor
    raise BeliefGraphError(
        f"the question names {first_name!r}, who does not speak; speakers: {list(graph.actors)}"
    )


def _turns(graph: BeliefGraph) -> dict[int, tuple[str, str]]:
    """Turn index -> (speaker, words said) of each spoken turn (``turn_words``: the words,
    whatever the parser, so the quote a question anchors on is matched under an LLM parse
    too)."""
    said = turn_words(graph)
    out: dict[int, tuple[str, str]] = {}
    for e in graph.events:
        if e.kind == "tell" and e.agent and e.sentence_index in said:
            out.setdefault(e.sentence_index, (e.agent, said[e.sentence_index]))
    return dict(sorted(out.items()))


def model_readings(
    item: Item, graph: BeliefGraph, holder: str, target: str
) -> dict[int, list[str]]:
    """Turn index -> what a model's parse of the dialogue adds to ``holder``'s perspective
    at that turn (empty for an offline graph):

    - each turn's content as the model typed it (what the speaker claims, asks, feels or
      wants: the ``llm`` events, heard by both speakers);
    - the beliefs the parse says ``holder`` holds about ``target`` (``(holder, target)``, or
      ``(holder,)`` with ``target`` as the subject), ``target`` holds and shows in that turn
      (``(target,)``: the graph propagates it to whoever perceived the turn), or, for a
      first-order question, ``holder`` holds (``(holder,)``), each at its last evidence turn
      and only when ``holder`` perceived that turn.
    """
    out: dict[int, list[str]] = {}
    for e in graph.events:
        if e.parser == "llm" and e.proposition is not None and holder in e.perceivers:
            p = e.proposition
            words = " ".join(w for w in (p.relation, p.value or "") if w not in ("say", ""))
            out.setdefault(e.sentence_index, []).append(words)
    chains = {(holder, target), (target,)} if target != holder else {(holder,)}
    for b in graph.story.implied:
        at = max(b.evidence)
        about = b.holders == (holder,) and b.proposition.subject == target
        if (b.holders in chains or about) and holder in _perceivers(graph, at):
            out.setdefault(at, []).append(b.wording)
    return out


def _perceivers(graph: BeliefGraph, turn: int) -> set[str]:
    return {p for e in graph.events if e.sentence_index == turn for p in e.perceivers}


def anchor_turn(item: Item, graph: BeliefGraph) -> int:
    """The index of the turn the question quotes, spoken by the holder.

    The quoted text decides; the release's ``u_id`` (counted after the two greeting lines)
    breaks ties between identical lines and stands in when the quote is not found.
    """
    holder = _speaker(graph, item.meta["holder"])
    turns = _turns(graph)
    wanted = " ".join(str(item.meta["utterance"]).split())
    hits = [i for i, (s, t) in turns.items() if s == holder and t == wanted]
    hint = None
    if str(item.meta.get("u_id", "")).isdigit():
        hint = int(item.meta["u_id"]) + GREETING_LINES
    if hits:
        return min(hits, key=lambda i: abs(i - hint)) if hint is not None else hits[0]
    if hint is not None and hint in turns and turns[hint][0] == holder:
        return hint
    raise BeliefGraphError(
        f"the anchor utterance {wanted[:60]!r} is not a line of {holder} in the conversation"
    )


# -- scoring -------------------------------------------------------------------------------
_PREFIX = re.compile(
    r"^(?:he|she|they)\s+(?:thinks?\s+that\s+(?:he|she|they)\s+)?"
    r"(?:thinks?|feels?|wants?|knows?|will|would)\b\s*",
    re.I,
)


def option_body(option: str) -> str:
    """The thought without its template prefix ("He thinks that she feels ...").

    Examples
    --------
    >>> option_body("She thinks that he wants to sell the car")
    'to sell the car'
    """
    return _PREFIX.sub("", option.strip())


class Alignment(BeliefModel):
    """How an option aligns with the holder's perspective at each of the holder's turns."""

    option: int
    """The option's index."""
    turns: tuple[int, ...]
    """The holder's turns (indices), in order."""
    scores: tuple[float, ...]
    """The alignment score at each of those turns."""
    anchor_probability: float = Field(ge=0.0, le=1.0)
    """Softmax probability that the option is the holder's thought at the anchor turn."""

    @property
    def best_turn(self) -> int:
        return self.turns[max(range(len(self.scores)), key=lambda i: self.scores[i])]


def align_options(
    item: Item,
    graph: BeliefGraph,
    *,
    late_penalty: float = 0.25,
    similarity: Literal["lexical", "embedding"] = "lexical",
    embedder: Any = None,
    readings: bool = False,
) -> list[Alignment]:
    """Score every option against the holder's perspective at each of their turns.

    At holder turn k the perspective is what the holder had perceived by then (the graph's
    perceivers): the utterance the thought preceded (turn k) and the last turn of the other
    speaker the holder had heard. An option scores the idf-weighted content words it shares
    with that window, less ``late_penalty`` times the weight of words the other speaker
    introduces only after turn k (the holder could not have heard them). Scores become a
    softmax over the holder's turns; ``anchor_probability`` is the anchor turn's share.

    With ``readings``, each window also holds the model's readings of its turns
    (``model_readings``; nothing for an offline graph). Off by default: on the recorded
    sample they lower the accuracy (docs/llm.md, "ToMATO and DialToM through beliefgraph and
    directly").

    With ``similarity="embedding"`` the window score is the summed cosine (x 20) of the
    option with the two turns' sentence embeddings (``embedder``: a
    ``text_metrics.EmbeddingSimilarity``).
    """
    holder = _speaker(graph, item.meta["holder"])
    target = _speaker(graph, item.meta.get("target", item.meta["holder"]))
    anchor = anchor_turn(item, graph)
    turns = _turns(graph)
    texts = {i: t for i, (_, t) in turns.items()}
    read = model_readings(item, graph, holder, target) if readings else {}
    idf = idf_weights([*texts.values(), *(r for rs in read.values() for r in rs)])
    first_by_other: dict[str, int] = {}
    for i, (s, t) in turns.items():
        for w in content_words(t):
            if w not in first_by_other:
                first_by_other[w] = i if s != holder else -1
    own = [i for i, (s, t) in turns.items() if s == holder and content_words(t)]
    if anchor not in own:
        own = sorted({*own, anchor})
    windows: dict[int, list[int]] = {}
    for k in own:
        heard = [
            i
            for i in perceived_turns(graph, holder, k)
            if i < k and i in turns and turns[i][0] != holder
        ]
        windows[k] = [k, *heard[-1:]]
    bodies = [option_body(o) for o in item.choices]
    if similarity == "embedding":
        if embedder is None:
            raise BeliefGraphError("similarity='embedding' needs an embedder")
        embedder.embed([*bodies, *texts.values()])
    out: list[Alignment] = []
    for oi, body in enumerate(bodies):
        words = set(content_words(body))
        scores = []
        for k in own:
            if similarity == "embedding":
                s = 20.0 * sum(embedder.score(body, [texts[j]]) for j in windows[k])
            else:
                window = {w for j in windows[k] for w in content_words(texts[j])}
                # The model's reading of the same turns: what it says the holder could
                # take the speakers to think, feel or want there.
                window |= {w for j in windows[k] for r in read.get(j, ()) for w in content_words(r)}
                s = sum(idf.get(w, 0.0) for w in words & window)
            late = sum(idf.get(w, 0.0) for w in words if first_by_other.get(w, -1) > k)
            scores.append(s - late_penalty * late)
        top = max(scores)
        z = sum(math.exp(s - top) for s in scores)
        p = math.exp(scores[own.index(anchor)] - top) / z
        out.append(
            Alignment(option=oi, turns=tuple(own), scores=tuple(scores), anchor_probability=p)
        )
    return out


def option_beliefs(item: Item, graph: BeliefGraph, alignments: Sequence[Alignment]) -> list[Belief]:
    """Each option as the belief it claims: held by the holder (about the target, 2nd order),
    anchored at the turn it aligns with best."""
    holder = _speaker(graph, item.meta["holder"])
    target = _speaker(graph, item.meta["target"])
    state = str(item.meta["mental_state"])
    order = int(item.meta["order"])
    turn_event = {e.sentence_index: e.id for e in graph.events}
    out = []
    for a in alignments:
        prop = Proposition(
            content_type=_CONTENT_TYPE.get(state, "Epistemic"),  # type: ignore[arg-type]
            subject=target,
            relation=_RELATION.get(state, state),
            value=option_body(item.choices[a.option]) or None,
        )
        event = turn_event.get(a.best_turn, 1)
        out.append(
            Belief(
                holders=(holder, target) if order == 2 and target != holder else (holder,),
                proposition=prop,
                start=event,
                truth_status="Unknown",
                knowledge_access="Private",
                representation="Explicit",
                mental_source="Inference",
                provenance=(event,),
            )
        )
    return out


def lexical_overlap_choice(question: str, choices: Sequence[str]) -> int:
    """The paper's LO baseline: the option sharing most distinct words with the question
    (ties to the first).

    Examples
    --------
    >>> lexical_overlap_choice("What does Ann want?", ["He wants cake", "Ann wants tea"])
    1
    """
    q = set(tokens(question))
    scores = [len(q & set(tokens(c))) for c in choices]
    return max(range(len(choices)), key=lambda i: (scores[i], -i))


def _breakdown(item: Item) -> dict[str, str]:
    order = _ORDER_NAME.get(int(item.meta.get("order", 0)), "?")
    state = str(item.meta.get("mental_state", "?"))
    out = {
        "mental_state": state,
        "order": order,
        "state_order": f"{state}/{order}",
        "false_belief": "FB" if item.meta.get("false_belief") else "not FB",
    }
    if item.meta.get("false_belief"):
        out["fb_state"] = state
    for factor, level in sorted(item.meta.get("big_five", {}).items()):
        out[f"big5_{factor}"] = f"{order}/{level}"
    return out


BREAKDOWNS = (
    "mental_state",
    "order",
    "state_order",
    "false_belief",
    "fb_state",
    "big5_O",
    "big5_C",
    "big5_E",
    "big5_A",
    "big5_N",
)


def _graph_answerer(
    tally: Tally,
    similarity: Literal["lexical", "embedding"],
    embedder: Any = None,
    readings: bool = False,
) -> Any:
    def answer(item: Item, graph: BeliefGraph) -> ItemResult:
        breakdown = _breakdown(item)
        lo = lexical_overlap_choice(item.question, item.choices)
        tally.record(item.id, "lexical_overlap", item.choices[lo] == item.answer, breakdown)
        alignments = align_options(
            item, graph, similarity=similarity, embedder=embedder, readings=readings
        )
        best = max(alignments, key=lambda a: (a.anchor_probability, -a.option))
        prediction = item.choices[best.option]
        anchor = anchor_turn(item, graph)
        beliefs = option_beliefs(item, graph, alignments)
        lines = [f"anchor: turn {anchor + 1}, holder {item.meta['holder']}"]
        for a, b in zip(alignments, beliefs, strict=True):
            lines.append(
                f"option {'ABCD'[a.option]}: P(anchor)={a.anchor_probability:.2f}, aligns best "
                f"with turn {a.best_turn + 1}: {' believes '.join(b.holders)} "
                f"{b.proposition.relation} {b.proposition.value or ''}".rstrip()
            )
        return ItemResult.answered(
            item,
            prediction,
            explanation=tuple(lines),
            breakdown=breakdown,
        )

    return answer


# -- the same model, directly: the paper's prompt -----------------------------------------------
DIRECT_PROMPT_ID = "tomato.paper.v1"
"""Shinoda et al. (2025), App. C, "Chat Messages with System Prompt for Evaluation on ToMATO"."""

DIRECT_SYSTEM = (
    "You are an expert at understanding human communication. Please leverage the information "
    "provided and choose the most probable answer to the question from the options. Output "
    "your final answer by strictly following this format: [A], [B], [C], or [D]"
)
"""The paper's system message, verbatim."""


def direct_messages(item: Item) -> list[dict[str, str]]:
    """The paper's evaluation messages for one question: the whole transcript as released
    (``Name: "utterance"`` lines, no thoughts), the question, the options ``[A]``..``[D]``
    in the file's order.

    Examples
    --------
    >>> item = Item(id="x", story='Al B: "Hi!"', question="Q?", answer="a",
    ...             choices=("a", "b", "c", "d"))
    >>> print(direct_messages(item)[1]["content"])
    # Transcript
    Al B: "Hi!"
    <BLANKLINE>
    # Question
    Q?
    <BLANKLINE>
    # Options
    [A] a
    [B] b
    [C] c
    [D] d
    """
    options = "\n".join(f"[{'ABCD'[i]}] {c}" for i, c in enumerate(item.choices))
    user = f"# Transcript\n{item.story}\n\n# Question\n{item.question}\n\n# Options\n{options}"
    return [{"role": "system", "content": DIRECT_SYSTEM}, {"role": "user", "content": user}]


def read_direct(reply: str, item: Item) -> str | None:
    """The option a reply names (``[X]`` as the release reads it, else a leading letter).

    >>> item = Item(id="x", story="", question="", answer="b", choices=("a", "b", "c", "d"))
    >>> read_direct("[B]", item), read_direct("I am not sure.", item)
    ('b', None)
    """
    index = letter_reply(reply, "ABCD"[: len(item.choices)])
    return None if index is None else item.choices[index]


def _direct(base: Benchmark, tally: Tally) -> Benchmark:
    from .direct import QuestionPrompt, make_direct

    def breakdown(item: Item) -> dict[str, str]:
        # The paper's lexical-overlap baseline beside the model, as on the graph path.
        out = _breakdown(item)
        lo = lexical_overlap_choice(item.question, item.choices)
        tally.record(item.id, "lexical_overlap", item.choices[lo] == item.answer, out)
        return out

    return make_direct(base, QuestionPrompt(DIRECT_PROMPT_ID, direct_messages, read_direct,
                                            breakdown))  # fmt: skip


def _conversation(item: Item) -> str:
    return item.story


@benchmarks.register("tomato")
def make_tomato(
    similarity: Literal["lexical", "embedding"] = "lexical",
    embedder: Any = None,
    *,
    direct: bool = False,
    dialogues: int | None = None,
    readings: bool = False,
) -> Benchmark:
    """The ToMATO adapter with the offline graph scorer (and the lexical-overlap baseline
    in ``metrics``).

    Parameters
    ----------
    similarity, embedder
        How options are aligned with a holder's turns (``align_options``).
    direct : bool
        The same-model direct baseline: each question asked in the paper's own prompt
        (``direct_messages``) through the run's LLM client, scored by the same scorer.
    dialogues : int, optional
        Only the questions of the first ``dialogues`` conversations of the file.
    readings : bool
        Under a model's parse, align the options with the model's readings of each turn too
        (``model_readings``); off by default (it lowered the recorded sample's accuracy).
    """
    tally = Tally()
    load = first_dialogues(load_tomato, dialogues, _conversation)
    if similarity == "embedding" and embedder is None and not direct:
        from .text_metrics import EmbeddingSimilarity

        if not EmbeddingSimilarity.available():
            raise BeliefGraphError(EmbeddingSimilarity.unavailable_reason())
        embedder = EmbeddingSimilarity()
    base = Benchmark(
        name="tomato",
        load=load,
        build=_build,
        answer=_graph_answerer(tally, similarity, embedder, readings),
        breakdowns=BREAKDOWNS,
        metrics=tally.metrics(),
        parallel=False,  # the tally the metrics read lives in this process
        story_key=_conversation,
    )
    return _direct(base, tally) if direct else base


# -- the LLM option scorer -----------------------------------------------------------------
class ToMATOLLMScorer:
    """Answer a ToMATO item with an LLM shown only what the holder had perceived by the
    anchor turn (never the rest of the transcript).

    Parameters
    ----------
    scorer : LLMOptionScorer, optional
        Built from the environment when omitted (raises ``LLMConfigurationError`` when no
        endpoint is configured).
    """

    def __init__(self, scorer: LLMOptionScorer | None = None, **settings: Any) -> None:
        self.scorer = scorer if scorer is not None else LLMOptionScorer(**settings)

    @staticmethod
    def messages(item: Item, graph: BeliefGraph) -> list[dict[str, str]]:
        """The prompt: the transcript up to the anchor, as perceived by the holder.

        Examples
        --------
        >>> conv = 'Al B: "Hi!"\\nCy D: "Hi, how are you?"\\nAl B: "Sell it."\\nCy D: "No."'
        >>> item = Item(id="x", story=conv, answer="a", choices=("a", "b", "c", "d"),
        ...             question='When Al says "Sell it.", what will Al do?',
        ...             meta={"holder": "Al", "utterance": "Sell it.", "u_id": "0"})
        >>> text = ToMATOLLMScorer.messages(item, _build(item))[1]["content"]
        >>> "Sell it." in text, "No." in text
        (True, False)
        """
        holder = _speaker(graph, item.meta["holder"])
        anchor = anchor_turn(item, graph)
        turns = _turns(graph)
        seen = perceived_turns(graph, holder, anchor)
        transcript = "\n".join(f'{turns[i][0]}: "{turns[i][1]}"' for i in seen if i in turns)
        return LLMOptionScorer.messages(transcript, item.question, item.choices)

    def __call__(self, item: Item, graph: BeliefGraph) -> tuple[int, str, int]:
        """The chosen option's index, the model's reason, and the calls it took."""
        from beliefgraph.parsers.llm.errors import LLMError

        before = self.scorer.calls
        try:
            index, reason = self.scorer.choose(self.messages(item, graph), len(item.choices))
        except BeliefGraphError:
            raise
        except Exception as err:  # openai / instructor errors become ours
            raise LLMError(f"the LLM option scorer failed: {type(err).__name__}: {err}") from err
        return index, reason, self.scorer.calls - before


@benchmarks.register("tomato-llm")
def make_tomato_llm(**settings: Any) -> Benchmark:
    """The ToMATO adapter answered by an LLM (endpoint from the environment or settings)."""
    tally = Tally()
    built: list[ToMATOLLMScorer] = []  # the client is made at the first answer, not on load

    def answer(item: Item, graph: BeliefGraph) -> ItemResult:
        if not built:
            built.append(ToMATOLLMScorer(**settings))
        breakdown = _breakdown(item)
        lo = lexical_overlap_choice(item.question, item.choices)
        tally.record(item.id, "lexical_overlap", item.choices[lo] == item.answer, breakdown)
        index, reason, calls = built[0](item, graph)
        prediction = item.choices[index]
        return ItemResult.answered(
            item,
            prediction,
            explanation=(reason,),
            breakdown=breakdown,
            llm_calls=calls,
        )

    return Benchmark(
        name="tomato-llm",
        load=load_tomato,
        build=_build,
        answer=answer,
        breakdowns=BREAKDOWNS,
        metrics=tally.metrics(),
        parallel=False,  # the tally the metrics read lives in this process
    )
