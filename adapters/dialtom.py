"""DialToM (seed 004): the recipient's mental state in counselling, support and persuasion.

Each record is a context window of a human-human dialogue between an initiator
(counselor, supporter, persuader) and a recipient (client, seeker, persuadee). Tasks:

- retrospective: choose the recipient's Belief / Desires / Intentions / Emotions /
  Knowledge / Trust at the end of the window among four first-person options;
- prospective (hard, and prospective-easy with random-context distractors): given only the
  recipient's six-attribute profile, choose the continuation consistent with it;
- counterfactual: the same continuations under a counterfactual profile, plus "None of the
  above" (NOTA), which is then the answer;
- written: one line in the attribute's opening phrase ("I believe", "I want", "I will",
  "I feel", "I know", "I view the … as"), scored by BLEU, ROUGE-L and embedding similarity
  against three human references.

Options are shuffled with a seed and scored by text, never by the stored letter. Malformed
records are repaired where the intent is clear and counted (``repairs`` in each item's meta,
``malformed.*`` in the run's metrics): a distractor that is a JSON fragment, markdown speaker
tags, a misspelt role, a line with no speaker, a "continuation" that is no dialogue at all.

The graph of a window: every spoken turn public to both, the recipient's trust in the
initiator a ``TrustEdge`` per window (carried from the session's earlier windows in the
file), and testimony from the initiator adopted by the recipient according to it
(``EdgeTrust``). The offline scorers:

- retrospective / written: an option scores the idf-weighted content words it shares with
  the recipient's beliefs at the end of the window (own words in full, the initiator's by
  the trust the recipient gives them), less a penalty for absolutes ("never", "completely")
  the dialogue never uses; a Trust option scores its polarity in the direction of the edge;
- prospective: a continuation scores its overlap with the profile plus the agreement of the
  trust it shows with the profile's Trust statement; NOTA when no continuation reaches a
  fixed consistency threshold.

Baseline: length only (the longest option) beside every figure, as the issue asks.

``make_dialtom(direct=True)`` is the same-model direct baseline: each item asked in the
release's own prompt (``benchmark.py``'s ``retrospective`` / ``prospective`` / ``written``,
``counterfactual_test.py``'s ``prospective``; MIT), the reply read as a letter (or the written
line) and scored by the same scorers. ``make_dialtom(dialogues=N)`` keeps the items of the
first N dialogue windows of each file (an item-blind sample).
"""

from __future__ import annotations

import csv
import difflib
import json
import math
import os
import random
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationInfo, field_validator

from beliefgraph.errors import BeliefGraphError, DataFormatError
from beliefgraph.graph import BeliefGraph
from beliefgraph.models import Belief, ParsedStory, Proposition, TrustEdge
from beliefgraph.parsers.llm.dialogue import Turn
from beliefgraph.reasoning.trust import estimate_trust
from beliefgraph.solvers.trust import EdgeTrust

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
from .text_metrics import EmbeddingSimilarity, bleu, rouge_l, rouge_l_f

__all__ = [
    "ATTRIBUTES",
    "NOTA",
    "OPENINGS",
    "DialToMLLM",
    "clean_dialogue",
    "continuation_choice",
    "direct_messages",
    "length_choice",
    "load_dialtom",
    "make_dialtom",
    "make_dialtom_llm",
    "profile_beliefs",
    "retrospective_choice",
    "session_edges",
]

ATTRIBUTES: tuple[str, ...] = ("Belief", "Desires", "Intentions", "Emotions", "Knowledge", "Trust")
OPENINGS = {
    "Belief": "I believe",
    "Desires": "I want",
    "Intentions": "I will",
    "Emotions": "I feel",
    "Knowledge": "I know",
    "Trust": "I view the {initiator} as",
}
NOTA = "None of the above"
INITIATORS = ("counselor", "supporter", "persuader", "agent 1")
RECIPIENTS = ("client", "seeker", "persuadee", "agent 2")
"""PersuasionForGood's transcripts name the persuader ``agent 1`` (it opens the chat)."""
DOMAINS = ("MI", "ESC", "PFG")
TASKS = ("retrospective", "prospective", "prospective-easy", "counterfactual", "written")
SEED = 13
NOTA_THRESHOLD = 0.5
"""A continuation whose consistency with the profile stays below this is ruled out."""
_CONTENT_TYPE = {
    "Belief": "Epistemic",
    "Desires": "Desire/Intention",
    "Intentions": "Desire/Intention",
    "Emotions": "Emotion",
    "Knowledge": "Epistemic",
    "Trust": "Trait/Value",
}


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ABSOLUTES = _wordset(
    "never always completely entirely totally only nothing everything pointless impossible "
    "none forever perfect perfectly anyone everyone nobody absolutely"
)
_TRUST_POSITIVE = _wordset(
    """trust trusted trusting trustworthy supportive support supporting caring cares care
    understand understands understanding listen listens listening genuinely genuine helpful
    helped helps help knowledgeable invested reliable respect respects empathetic
    compassionate kind patient encouraging safe open honest definitely truly confident
    comfortable relatable"""
)
_TRUST_NEGATIVE = _wordset(
    """unsure agenda skeptical not doesn't don't didn't isn't untrustworthy distrust
    exaggerating exaggerate uncertain wonder mixed partially dismissive unhelpful sell motives
    motive uncomfortable confusion confused too pushy judgmental doubt doubtful suspicious
    hesitant wary manipulative pressuring pressure cautious questionable insincere lecturing
    condescending superficial biased dismissing somewhat maybe might possibly cannot can't
    never deceptive misleading uninterested"""
)


# -- cleaning ------------------------------------------------------------------------------
_TAG = re.compile(
    r"^\s*(?:[#>*_\-\s]*)\**\s*(?P<role>[A-Za-z][A-Za-z ]{0,14}?\d?)\s*\**\s*:"
    r"\s*\**\s*(?P<body>.*)$"
)
_ROLES = (*INITIATORS, *RECIPIENTS)


def _role(word: str) -> tuple[str | None, bool]:
    """The known role a speaker tag names, and whether it was misspelt."""
    w = " ".join(word.lower().split())
    if w in _ROLES:
        return w, False
    close = difflib.get_close_matches(w, _ROLES, n=1, cutoff=0.75)
    if close:
        return close[0], True
    return None, False


def clean_dialogue(text: str | Sequence[str]) -> tuple[list[tuple[str | None, str]], list[str]]:
    """Read ``role: utterance`` lines, repairing what is clear; return turns and repairs.

    Repairs (each counted once per occurrence): ``json_fragment`` (a JSON object whose
    ``alternative_conversation`` holds the lines), ``markdown_tag`` (``**client:**``),
    ``speaker_typo`` (``upporter:``), ``no_speaker`` (a line with no role: it continues the
    previous turn, or opens the text with role None), ``not_dialogue`` (no line names a role).

    Examples
    --------
    >>> turns, repairs = clean_dialogue("**client:** I tried.\\nupporter: Good.\\nand again")
    >>> turns
    [('client', 'I tried.'), ('supporter', 'Good. and again')]
    >>> repairs
    ['markdown_tag', 'speaker_typo', 'no_speaker']
    """
    repairs: list[str] = []
    if isinstance(text, str):
        stripped = text.strip()
        if stripped.startswith("{"):
            try:
                data = json.loads(stripped)
            except json.JSONDecodeError:
                data = None
            if isinstance(data, dict):
                lines = data.get("alternative_conversation") or data.get("conversation")
                if isinstance(lines, list) and all(isinstance(x, str) for x in lines):
                    repairs.append("json_fragment")
                    turns, more = clean_dialogue(lines)
                    return turns, repairs + more
        lines_in: Sequence[str] = text.split("\n")
    else:
        lines_in = text
    turns: list[tuple[str | None, str]] = []
    for raw in lines_in:
        line = raw.strip()
        if not line or re.fullmatch(r"[/\\\-*#_.]+", line):
            continue
        m = _TAG.match(line)
        role, typo = _role(m["role"]) if m else (None, False)
        if m is not None and role is not None:
            if re.match(r"^\s*[#>*_]", line) or "*" in line[: m.end("role") + 4]:
                repairs.append("markdown_tag")
            if typo:
                repairs.append("speaker_typo")
            body = m["body"].strip().strip("*").strip()
            turns.append((role, body))
            continue
        repairs.append("no_speaker")
        body = line.strip("-").strip()
        if turns:
            who, said = turns[-1]
            turns[-1] = (who, f"{said} {body}".strip())
        else:
            turns.append((None, body))
    if turns and all(r is None for r, _ in turns):
        repairs = [r for r in repairs if r != "no_speaker"] + ["not_dialogue"]
    return turns, repairs


def _render(turns: Sequence[tuple[str | None, str]]) -> str:
    return "\n".join(f"{r}: {t}" if r else t for r, t in turns)


# -- loading -------------------------------------------------------------------------------
_FILE = re.compile(
    r"^(?P<domain>[A-Za-z]+)_(?P<task>retrospective|prospective-easy|prospective|counterfact)"
    r"(?:_verified)?\.json$"
)


def load_dialtom(path: Path, problems: Problems | None = None, *, seed: int = SEED) -> list[Item]:
    """Read DialToM's released files: one file, or every one in a folder (recursively).

    Files: ``{MI,ESC,PFG}_retrospective_verified.json``, ``..._prospective_verified.json``,
    ``..._prospective-easy_verified.json``, ``counterfactual_data/{D}_counterfact.json``
    (needs the prospective file of its domain, looked up beside it and in ``../data``) and
    ``combined_written_data.json`` with ``written_inference.csv`` beside it.

    A record that cannot be used (no context, no options for its attribute, an unknown
    letter) becomes an item with no choices and ``meta["malformed"]`` naming the fault, so a
    run scores it wrong and counts it instead of stopping.

    Raises
    ------
    DataFormatError
        For a missing path, a file that is not JSON, or a folder with no DialToM file (with
        ``problems`` given, a file of a folder that cannot be read, or a record that is not
        UTF-8, is collected there and the rest is read).
    """
    problems = strict_if_none(problems)
    path = Path(path)
    if not path.exists():
        raise DataFormatError(f"{path}: no such file or directory")
    if path.is_dir():
        files = sorted(
            p
            for p in path.rglob("*.json")
            if _FILE.match(p.name) or p.name == "combined_written_data.json"
        )
        if not files:
            raise DataFormatError(
                f"{path}: no DialToM files (e.g. MI_retrospective_verified.json) in this folder"
            )
        items: list[Item] = []
        for f in files:
            with problems.record(f):
                items.extend(load_dialtom(f, problems, seed=seed))
        return problems.result(items)
    if path.name == "combined_written_data.json":
        return problems.result(_load_written(path, seed))
    m = _FILE.match(path.name)
    if m is None:
        raise DataFormatError(
            f"{path}: not a DialToM file name ({{MI,ESC,PFG}}_retrospective_verified.json, "
            "..._prospective_verified.json, ..._counterfact.json, combined_written_data.json)"
        )
    domain, task = m["domain"], m["task"]
    if task == "counterfact":
        return problems.result(_load_counterfactual(path, domain, seed))
    records = _read_json(path)
    if not isinstance(records, list):
        raise DataFormatError(f"{path}: expected a JSON list of records")
    history = _histories(records)
    items = []
    for i, r in enumerate(records):
        with problems.record(path):
            require_utf8(r, f"record {i}")
            items.append(_record_item(path, domain, task, i, r, history, seed))
    return problems.result(items)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as err:
        raise DataFormatError(f"{path}: not JSON ({err})") from None


def _session_window(rid: str) -> tuple[str, int | None]:
    session, _, window = str(rid).partition(",")
    w = window.strip()
    return session.strip(), int(w) if w.isdigit() else None


def _histories(records: list[Any]) -> dict[str, dict[int, list[str]]]:
    """Session -> window -> context lines, for every well-formed record of a file."""
    out: dict[str, dict[int, list[str]]] = defaultdict(dict)
    for r in records:
        if isinstance(r, dict) and isinstance(r.get("ctx"), list):
            s, w = _session_window(r.get("id", ""))
            if w is not None:
                out[s].setdefault(w, [str(x) for x in r["ctx"]])
    return out


def _roles(turns: Sequence[tuple[str | None, str]]) -> tuple[str, str]:
    seen = [r for r, _ in turns if r]
    initiator = next((r for r in seen if r in INITIATORS), "counselor")
    recipient = next((r for r in seen if r in RECIPIENTS), "client")
    return initiator, recipient


def _shuffled(texts: Sequence[str], key: str, seed: int) -> tuple[str, ...]:
    out = list(texts)
    random.Random(f"{seed}:{key}").shuffle(out)
    return tuple(out)


def _malformed(item_id: str, story: str, why: str, meta: dict[str, Any]) -> Item:
    return Item(
        id=item_id,
        story=story,
        question="",
        choices=(),
        answer="",
        meta={**meta, "malformed": why, "repairs": ["skipped_record"]},
    )


def _unknown_domain(domain: str) -> str | None:
    """Why ``domain`` cannot be used (DialToM's prompts name each domain's two roles)."""
    if domain in AGENT1:
        return None
    return f"unknown domain {domain!r}: DialToM's domains are {', '.join(AGENT1)}"


def _record_item(
    path: Path,
    domain: str,
    task: str,
    index: int,
    r: Any,
    history: dict[str, dict[int, list[str]]],
    seed: int,
) -> Item:
    item_id = f"{path.stem}:{index}"
    meta: dict[str, Any] = {"task": task, "domain": domain, "file": path.name, "index": index}
    if not isinstance(r, dict):
        return _malformed(item_id, "", f"record is a {type(r).__name__}", meta)
    if why := _unknown_domain(domain):
        return _malformed(item_id, "", why, meta)
    state = r.get("state")
    meta.update(record_id=str(r.get("id", "")), attribute=state, topic=r.get("topic"))
    ctx = r.get("ctx")
    options = r.get("options")
    correct = r.get("correct_option")
    if not isinstance(ctx, list) or not ctx:
        return _malformed(item_id, "", "no context (ctx)", meta)
    turns, repairs = clean_dialogue([str(x) for x in ctx])
    initiator, recipient = _roles(turns)
    story = _render(turns)
    meta.update(initiator=initiator, recipient=recipient)
    session, window = _session_window(meta["record_id"])
    meta.update(session=session, window=window)
    if not isinstance(options, dict) or not isinstance(correct, dict):
        return _malformed(item_id, story, "no options or correct_option", meta)
    bad = [
        a
        for a in ATTRIBUTES
        if not isinstance(options.get(a), dict) or correct.get(a) not in options.get(a, {})
    ]
    if state not in ATTRIBUTES or state in bad:
        return _malformed(item_id, story, f"attribute {state!r} has no usable options", meta)
    profile = {a: str(options[a][correct[a]]) for a in ATTRIBUTES if a not in bad}
    meta["options"] = {a: [str(o) for o in options[a].values()] for a in ATTRIBUTES if a not in bad}
    if task == "retrospective":
        earlier = history.get(session, {})
        meta["history"] = [earlier[w] for w in sorted(earlier) if window is not None and w < window]
        meta["repairs"] = repairs
        opts = [str(o) for o in options[state].values()]
        return Item(
            id=item_id,
            story=story,
            question=f"What is the {recipient}'s {state} at the end of the conversation?",
            choices=_shuffled(opts, item_id, seed),
            answer=profile[state],
            meta=meta,
        )
    return _prospective_item(item_id, r, profile, meta, repairs, seed, NOTA_choice=False)


def _prospective_item(
    item_id: str,
    r: dict[str, Any],
    profile: dict[str, str],
    meta: dict[str, Any],
    repairs: list[str],
    seed: int,
    NOTA_choice: bool,
) -> Item:
    """A forecasting item: the reader sees the profile only (``story`` is the profile)."""
    gold_raw = r.get("correct_action")
    distractors = r.get("distractors")
    if not isinstance(gold_raw, str) or not isinstance(distractors, list) or not distractors:
        return _malformed(item_id, "", "no correct_action or distractors", meta)
    gold_turns, more = clean_dialogue(gold_raw)
    repairs = list(repairs) + more
    texts = [_render(gold_turns)]
    for d in distractors:
        d_turns, more = clean_dialogue(d if isinstance(d, str) else json.dumps(d))
        repairs += more
        texts.append(_render(d_turns))
    if len(set(texts)) < len(texts):
        repairs.append("duplicate_option")
    recipient = meta["recipient"]
    story = "\n".join(f"{a}: {profile[a]}" for a in ATTRIBUTES if a in profile)
    choices = _shuffled(texts, item_id, seed)
    if NOTA_choice:
        choices = (*choices, NOTA)
    meta.update(profile=profile, repairs=repairs, continuation_lengths=[len(t) for t in texts])
    return Item(
        id=item_id,
        story=story,
        question=f"Given only the {recipient}'s mental state, which continuation follows?",
        choices=choices,
        answer=NOTA if NOTA_choice else texts[0],
        meta=meta,
    )


def _load_counterfactual(path: Path, domain: str, seed: int) -> list[Item]:
    data = _read_json(path)
    if not isinstance(data, dict):
        raise DataFormatError(f"{path}: expected an object keyed '<id>_<attribute>'")
    name = f"{domain}_prospective_verified.json"
    source = next(
        (p for p in (path.parent / name, path.parent.parent / "data" / name) if p.is_file()), None
    )
    if source is None:
        raise DataFormatError(
            f"{path}: the counterfactual profiles need {name} (the continuations); "
            f"put it beside this file or in ../data"
        )
    records = _read_json(source)
    by_key = {f"{r.get('id')}_{r.get('state')}": r for r in records if isinstance(r, dict)}
    items = []
    for index, (key, statements) in enumerate(data.items()):
        item_id = f"{path.stem}:{index}"
        meta: dict[str, Any] = {
            "task": "counterfactual",
            "domain": domain,
            "file": path.name,
            "index": index,
            "record_id": key.rsplit("_", 1)[0],
            "attribute": key.rsplit("_", 1)[-1],
        }
        r = by_key.get(key)
        if why := _unknown_domain(domain):
            items.append(_malformed(item_id, "", why, meta))
            continue
        if r is None:
            items.append(_malformed(item_id, "", f"no prospective record {key!r}", meta))
            continue
        if not (isinstance(statements, list) and len(statements) == len(ATTRIBUTES)):
            items.append(_malformed(item_id, "", "expected six counterfactual statements", meta))
            continue
        turns, repairs = clean_dialogue([str(x) for x in r.get("ctx", [])])
        initiator, recipient = _roles(turns)
        meta.update(initiator=initiator, recipient=recipient)
        profile = dict(zip(ATTRIBUTES, (str(s) for s in statements), strict=True))
        items.append(_prospective_item(item_id, r, profile, meta, repairs, seed, NOTA_choice=True))
    return items


def _load_written(path: Path, seed: int) -> list[Item]:
    data = _read_json(path)
    refs_file = path.parent / "written_inference.csv"
    if not refs_file.is_file():
        raise DataFormatError(f"{path}: the references {refs_file.name} must sit beside it")
    refs: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    if True:  # the references, decoded as every file is (see adapters.loading)
        for row in csv.DictReader(read_text(refs_file).splitlines(keepends=True)):
            key = (row.get("dataset", ""), row.get("sub_id", ""), row.get("mental_state", ""))
            if row.get("inferences", "").strip():
                refs[key].append(row["inferences"].strip())
    items = []
    for index, ((domain, rid, attr), references) in enumerate(sorted(refs.items())):
        item_id = f"written:{domain}:{rid}:{attr}"
        meta: dict[str, Any] = {
            "task": "written",
            "domain": domain,
            "file": path.name,
            "index": index,
            "record_id": rid,
            "attribute": attr,
            "references": references,
        }
        r = data.get(domain, {}).get(rid) if isinstance(data, dict) else None
        if why := _unknown_domain(domain):
            items.append(_malformed(item_id, "", why, meta))
            continue
        if not isinstance(r, dict) or not isinstance(r.get("ctx"), list):
            items.append(_malformed(item_id, "", f"no context for {domain} {rid!r}", meta))
            continue
        turns, repairs = clean_dialogue([str(x) for x in r["ctx"]])
        initiator, recipient = _roles(turns)
        options, correct = r.get("options", {}), r.get("correct_option", {})
        if attr not in ATTRIBUTES or correct.get(attr) not in options.get(attr, {}):
            items.append(_malformed(item_id, _render(turns), f"no options for {attr!r}", meta))
            continue
        opening = OPENINGS[attr].format(initiator=initiator)
        meta.update(
            initiator=initiator,
            recipient=recipient,
            opening=opening,
            repairs=repairs,
            options={attr: [str(o) for o in options[attr].values()]},
            history=[],
        )
        items.append(
            Item(
                id=item_id,
                story=_render(turns),
                question=f'Write the {recipient}\'s {attr} in one line, starting "{opening}".',
                answer=str(options[attr][correct[attr]]),
                meta=meta,
            )
        )
    return items


# -- the graph -----------------------------------------------------------------------------
def session_edges(item: Item) -> tuple[list[Turn], list[TrustEdge], int]:
    """The session's turns in the file up to this window, one trust edge per window, and the
    index of this window's first turn.

    Each window's edge recipient → initiator starts from the previous window's weight.
    """
    key = (item.id, item.story, len(item.meta.get("history", [])))
    if key not in _SESSIONS:
        if len(_SESSIONS) > 4096:
            _SESSIONS.clear()
        _SESSIONS[key] = _session_edges(item)
    turns, edges, start = _SESSIONS[key]
    return list(turns), list(edges), start


_SESSIONS: dict[tuple[str, str, int], tuple[list[Turn], list[TrustEdge], int]] = {}


def _session_edges(item: Item) -> tuple[list[Turn], list[TrustEdge], int]:
    initiator, recipient = item.meta["initiator"], item.meta["recipient"]
    windows = [*item.meta.get("history", []), None]
    turns: list[Turn] = []
    edges: list[TrustEdge] = []
    weight = 0.5
    start = 0
    for w, lines in enumerate(windows):
        window_turns = clean_dialogue(lines)[0] if lines is not None else _story_turns(item.story)
        dturns = [Turn(r or "narrator", t) for r, t in window_turns]
        start = len(turns)
        label = f"{item.meta.get('session')}, earlier {w}" if lines is not None else None
        edge = estimate_trust(
            dturns,
            recipient,
            initiator,
            prior=weight,
            start=start + 1,
            window=label or str(item.meta.get("record_id")),
        )
        if edges:
            edges[-1] = edges[-1].model_copy(update={"end": start + 1})
        edges.append(edge)
        weight = edge.weight
        turns.extend(dturns)
    return turns, edges, start


def _story_turns(story: str) -> list[tuple[str | None, str]]:
    out: list[tuple[str | None, str]] = []
    for line in story.splitlines():
        role, sep, text = line.partition(": ")
        out.append((role, text) if sep and role in _ROLES else (None, line))
    return out


def _build(item: Item) -> BeliefGraph:
    forecasting = item.meta.get("task") in ("prospective", "prospective-easy", "counterfactual")
    if item.meta.get("malformed") or forecasting:
        return _profile_graph(item)
    turns, edges, _ = session_edges(item)
    policy = EdgeTrust(edges=tuple(edges))
    people = (item.meta["initiator"], item.meta["recipient"])
    return run_dialogue_graph(turns, trust=policy, participants=people)


def _profile_graph(item: Item) -> BeliefGraph:
    """A graph with no events: the recipient's profile, asserted (the forecasting input)."""
    recipient = item.meta.get("recipient", "client")
    initiator = item.meta.get("initiator", "counselor")
    story = ParsedStory(text=item.story, sentences=(), events=(), actors=(recipient, initiator))
    graph = BeliefGraph(story, trust=EdgeTrust())
    for b in profile_beliefs(recipient, item.meta.get("profile", {})):
        graph.add_belief(b)
    return graph


def profile_beliefs(recipient: str, profile: dict[str, str], at: int = 0) -> list[Belief]:
    """The profile as first-person beliefs held by the recipient.

    Examples
    --------
    >>> [b.proposition.content_type for b in profile_beliefs("client", {"Emotions": "I feel ok"})]
    ['Emotion']
    """
    out = []
    for attr, text in profile.items():
        prop = Proposition(
            content_type=_CONTENT_TYPE.get(attr, "Epistemic"),  # type: ignore[arg-type]
            subject=recipient,
            relation=attr.lower(),
            value=text,
        )
        out.append(
            Belief(
                holders=(recipient,),
                proposition=prop,
                start=at,
                truth_status="Unknown",
                knowledge_access="Private",
                representation="Explicit",
                mental_source="Inference",
                asserted=True,
            )
        )
    return out


# -- scorers -------------------------------------------------------------------------------
def length_choice(choices: Sequence[str]) -> int:
    """The length-only baseline: the longest option (NOTA never; ties to the first).

    Examples
    --------
    >>> length_choice(["short", "a longer one", NOTA])
    1
    """
    lengths = [len(c) if c != NOTA else -1 for c in choices]
    return max(range(len(choices)), key=lambda i: (lengths[i], -i))


def _trust_polarity(text: str) -> float:
    words = tokens(text)
    return sum(w in _TRUST_POSITIVE for w in words) - 1.5 * sum(w in _TRUST_NEGATIVE for w in words)


def recipient_perspective(
    item: Item, graph: BeliefGraph, readings: bool = False
) -> tuple[dict[str, float], TrustEdge]:
    """Content word -> weight in the recipient's beliefs at the end of the window.

    The recipient's own turns count fully; the initiator's turns count by the trust the
    recipient's belief in them carries (``Belief.trust``), and not at all when the edge kept
    the testimony out. Each turn counts its words (from the graph's sentences). With
    ``readings``, under a model's parse (``parser="llm"``), also what the model typed it as
    saying, feeling or wanting, at the same weight, and the beliefs the parse gives the
    recipient in this window, in full (off by default: it lowered the recorded sample's
    accuracy).
    """
    recipient = item.meta["recipient"]
    policy = graph.trust
    _, _, start = session_edges(item)
    said = turn_words(graph)
    edge = (
        policy.edge(recipient, item.meta["initiator"], graph.end)
        if isinstance(policy, EdgeTrust)
        else None
    )
    weights: dict[str, float] = {}

    def add(text: str, w: float) -> None:
        for word in content_words(text):
            weights[word] = max(weights.get(word, 0.0), w)

    turn_weight: dict[int, float] = {}
    for e in graph.events:
        if e.sentence_index < start or e.kind != "tell" or e.proposition is None:
            continue
        if e.agent == recipient:
            w = 1.0
        else:
            b = graph.belief((recipient,), variable=e.proposition.variable)
            w = b.trust if b is not None and b.trust is not None else 0.0
        i = e.sentence_index
        turn_weight[i] = max(turn_weight.get(i, 0.0), w)
        if readings and e.parser == "llm":
            add(_reading(e.proposition), w)
    for i, w in turn_weight.items():
        add(said.get(i, ""), w)
    for b in graph.story.implied if readings else ():
        if b.holders == (recipient,) and max(b.evidence) >= start:
            add(b.wording, 1.0)
    if edge is None:
        edge = TrustEdge(truster=recipient, trustee=item.meta["initiator"], weight=0.5)
    return weights, edge


def _reading(p: Proposition) -> str:
    """A typed proposition's words (the bare ``say`` of an untyped turn left out)."""
    return " ".join(w for w in (p.relation, p.value or "") if w and w != "say")


def model_texts(graph: BeliefGraph) -> list[str]:
    """What a model's parse wrote about the dialogue (its typed turns and implied beliefs);
    empty for an offline graph."""
    out = [_reading(e.proposition) for e in graph.events
           if e.parser == "llm" and e.proposition is not None]  # fmt: skip
    return [*out, *(b.wording for b in graph.story.implied)]


def retrospective_choice(
    item: Item,
    graph: BeliefGraph,
    attribute: str,
    options: Sequence[str],
    absolutes: float = 1.0,
    readings: bool = False,
) -> tuple[int, list[float], TrustEdge]:
    """Score each option of ``attribute`` against the recipient's perspective; the best index,
    the scores and the trust edge read (``readings``: see ``recipient_perspective``)."""
    weights, edge = recipient_perspective(item, graph, readings)
    texts = item.story.splitlines()
    idf = idf_weights([*texts, *(model_texts(graph) if readings else ())])
    seen = {t for line in texts for t in tokens(line)}
    scores = []
    for o in options:
        words = set(content_words(o))
        overlap = sum(weights[w] * idf.get(w, 0.0) for w in words if w in weights)
        overlap /= math.sqrt(1 + len(words))
        extreme = sum(1 for t in tokens(o) if t in _ABSOLUTES and t not in seen)
        score = overlap - absolutes * extreme
        if attribute == "Trust":
            direction = 1.0 if edge.weight >= 0.5 else -1.0
            score = direction * _trust_polarity(o) + 0.1 * overlap
        scores.append(score)
    best = max(range(len(options)), key=lambda i: (scores[i], -i))
    return best, scores, edge


def continuation_choice(
    profile: dict[str, str], choices: Sequence[str], *, trust_weight: float = 2.0
) -> tuple[int, list[float]]:
    """The continuation most consistent with the profile (``NOTA`` when none reaches
    ``NOTA_THRESHOLD`` and it is offered); the index and every option's consistency.

    Consistency: the profile's content words the recipient's lines repeat (the initiator's
    at half weight), over the square root of the continuation's vocabulary, plus
    ``trust_weight`` x the agreement between the trust the recipient shows in it
    (``estimate_trust``) and the profile's Trust statement's polarity.
    """
    initiator, recipient = "initiator", "recipient"
    profile_words = {w for s in profile.values() for w in content_words(s)}
    polarity = _trust_polarity(profile.get("Trust", ""))
    scores: list[float] = []
    for c in choices:
        if c == NOTA:
            scores.append(NOTA_THRESHOLD)
            continue
        turns, _ = clean_dialogue(c)
        said = [(recipient if r in RECIPIENTS else initiator, t) for r, t in turns]
        own = {w for who, t in said if who == recipient for w in content_words(t)}
        other = {w for who, t in said if who != recipient for w in content_words(t)}
        overlap = len(profile_words & own) + 0.5 * len(profile_words & other)
        overlap /= math.sqrt(1 + len(own | other))
        edge = estimate_trust([Turn(w, t) for w, t in said], recipient, initiator)
        agree = (edge.weight - 0.5) * (1.0 if polarity >= 0 else -1.0)
        scores.append(overlap + trust_weight * agree)
    real = [i for i, c in enumerate(choices) if c != NOTA]
    best = max(real, key=lambda i: (scores[i], -i))
    if NOTA in choices and scores[best] < NOTA_THRESHOLD:
        best = choices.index(NOTA)
    return best, scores


# -- answering -----------------------------------------------------------------------------
def _breakdown(item: Item) -> dict[str, str]:
    task, domain = str(item.meta.get("task")), str(item.meta.get("domain"))
    out = {"task": task, "domain": domain, "task_domain": f"{task}/{domain}"}
    if task in ("retrospective", "written"):
        attr = str(item.meta.get("attribute"))
        out.update(attribute=attr, task_attribute=f"{task}/{attr}")
    return out


BREAKDOWNS = ("task", "domain", "task_domain", "attribute", "task_attribute")


class _Offline:
    """The offline answerer, with the run's side figures in ``tally``."""

    def __init__(
        self, tally: Tally, embedder: EmbeddingSimilarity | None, readings: bool = False
    ) -> None:
        self.tally = tally
        self.embedder = embedder
        self.readings = readings
        self.deferred: list[tuple[str, str, str, list[str]]] = []

    def finish(self, tally: Tally) -> None:
        """Embed every written line and reference in one batch, then score them."""
        if self.embedder is None or not self.deferred:
            return
        self.embedder.embed([t for _, _, text, refs in self.deferred for t in (text, *refs)])
        for name, domain, text, refs in self.deferred:
            v = self.embedder.score(text, refs)
            tally.add_value(f"{name}.embedding", v)
            tally.add_value(f"{name}.embedding.{domain}", v)
        self.deferred.clear()

    def __call__(self, item: Item, graph: BeliefGraph) -> ItemResult:
        breakdown = _breakdown(item)
        for repair in item.meta.get("repairs", []):
            self.tally.count(f"malformed.{repair}")
        if item.meta.get("malformed"):
            return ItemResult(
                id=item.id,
                gold=item.answer,
                prediction=None,
                correct=False,
                explanation=(f"malformed record: {item.meta['malformed']}",),
                breakdown=breakdown,
            )
        task = item.meta["task"]
        if task == "written":
            return self._written(item, graph, breakdown)
        if task == "retrospective":
            best, scores, edge = retrospective_choice(
                item, graph, item.meta["attribute"], item.choices, readings=self.readings
            )
            why = [f"trust edge {edge.truster} -> {edge.trustee}: {edge.level} ({edge.weight})"]
            why += list(edge.reasons[:6])
        else:
            best, scores = continuation_choice(item.meta["profile"], item.choices)
            why = []
            if task != "counterfactual":
                offered = (*item.choices, NOTA)
                alarm, _ = continuation_choice(item.meta["profile"], offered)
                self.tally.record(item.id, "nota_false_alarm", offered[alarm] == NOTA, breakdown)
        why += [f"option {i + 1}: {s:.3f}" for i, s in enumerate(scores)]
        prediction = item.choices[best]
        lc = length_choice(item.choices)
        self.tally.record(item.id, "length_baseline", item.choices[lc] == item.answer, breakdown)
        return ItemResult.answered(
            item,
            prediction,
            explanation=tuple(why),
            breakdown=breakdown,
        )

    def _written(self, item: Item, graph: BeliefGraph, breakdown: dict[str, str]) -> ItemResult:
        attr = item.meta["attribute"]
        options = item.meta["options"][attr]
        best, _, _ = retrospective_choice(item, graph, attr, options, readings=self.readings)
        text = options[best]
        self.written_figures(item, text, "written")
        self.written_figures(item, item.answer, "written_gold_option")
        return ItemResult.answered(
            item,
            text,
            explanation=(f"chose the {attr} option the recipient's perspective supports",),
            breakdown=breakdown,
        )

    def written_figures(self, item: Item, text: str, name: str) -> None:
        refs = item.meta["references"]
        domain = item.meta["domain"]
        b = sum(bleu(text, [r]) for r in refs) / len(refs)
        # bleu and rouge_l are the release's (sacreBLEU, the ``rouge`` package); rouge_l_f
        # is our reading (rouge-score's formula), kept beside them under its own name.
        figures = {"bleu": b, "rouge_l": rouge_l(text, refs), "rouge_l_f": rouge_l_f(text, refs)}
        if self.embedder is not None:
            self.deferred.append((name, domain, text, refs))
            if self.finish not in self.tally.pending:
                self.tally.pending.append(self.finish)
        for k, v in figures.items():
            self.tally.add_value(f"{name}.{k}", v)
            self.tally.add_value(f"{name}.{k}.{domain}", v)


def _embedder(embeddings: bool | None) -> EmbeddingSimilarity | None:
    if embeddings is None:
        embeddings = os.environ.get("BELIEFGRAPH_EMBEDDINGS", "1") != "0"
    if embeddings and EmbeddingSimilarity.available():
        return EmbeddingSimilarity()
    return None


def _story_key(item: Item) -> str:
    if item.meta.get("task") in ("retrospective", "written"):
        return f"{item.meta.get('domain')}:{item.meta.get('record_id')}:{item.story}"
    return item.id


# -- the same model, directly: the release's prompts ------------------------------------------
DIRECT_PROMPT_ID = "dialtom.release.v1"
"""DialToM's release (github.com/Stealth-py/DialToM, ``benchmark.py`` and
``counterfactual_test.py`` at 0250277; MIT): its prompts, verbatim."""

AGENT1 = {"MI": "Counselor", "ESC": "Supporter", "PFG": "Persuader"}
AGENT2 = {"MI": "Client", "ESC": "Seeker", "PFG": "Persuadee"}
TASK_DESC = {
    "MI": "Counseling Session",
    "ESC": "Emotional Support Conversation",
    "PFG": "Persuasion Conversation",
}
"""The release's ``utils.agent1`` / ``agent2`` and ``get_data``'s ``task_desc``."""

_RETROSPECTIVE = """
You are an expert in Theory of Mind reasoning.

Task:
You will be provided with conversation between two agents {agent1} and {agent2} engaging in a \
{task_desc} session on the topic of {topic}.

Your goal is to correctly infer {agent2}'s {state} state, based on the above conversation. You \
will be provided with a set of options, and you need to choose the most appropriate one that \
reflects the {state} state.

The correct option must be consistent with the provided conversation context.

Conversation Context:
{ctx}

Mental State Options:
{options}

Instruction
Output only the letter of the correct option (e.g., "A", "B", "C", or "D"). Do not add \
explanations or other verbosity.
Your output should be strictly one of: A, B, C, D. NO FORMATTING NEEDS TO BE DONE. ONLY OUTPUT \
THE OPTION AND NOTHING ELSE. YOUR OUTPUT SHOULD STRICTLY BE ONE OF A, B, C, or D.

Answer:
    """
_PROSPECTIVE = """
You are an expert in Theory of Mind reasoning.

Task:
You will be provided with internal Mental State profile (Belief, Desire, Intention, Emotion, \
Knowledge, Trust) of client during the conversation.

Your goal is to identify which of the candidate conversation segments is the most plausible \
continuation of this conversation.
The correct option must be consistent with the provided Mental States of the client.{nota}

Mental state of {agent2}
{profile}

Candidate Conversation Segments
{options}

Instruction
{instructions}

Answer:
"""
_INSTRUCTIONS = """Output only the letter of the correct option (e.g., "A", "B", "C", or "D"). \
Do not add explanations or other verbosity.
Your output should be strictly one of: A, B, C, D. NO FORMATTING NEEDS TO BE DONE."""
_INSTRUCTIONS_NOTA = """Output only the letter of the correct option (e.g., "A", "B", "C", "D", \
or "E"). Do not add explanations or other verbosity.
Your output should be strictly one of: A, B, C, D, E. NO FORMATTING NEEDS TO BE DONE."""
_WRITTEN = """
You are an expert in Theory of Mind reasoning.

Task:
You will be provided with a context of a conversation between {agent1} and {agent2}.

Your goal is to accurately infer the {state} mental state of the {agent2} in one line.
The correct option must be consistent with the provided conversational context.

Conversation Context:
{ctx}

Instruction
Output only a line inference. Your response should always start with "{opening}". Do not add \
explanations or other verbosity. STRICTLY FOLLOW THIS FORMAT AND OUTPUT ONLY ONE LINE.

Answer:
"""


def _named(text: str, domain: str) -> str:
    """The release's renaming of PersuasionForGood's ``agent 1`` / ``agent 2``."""
    return text.replace("agent 1", AGENT1[domain]).replace("agent 2", AGENT2[domain])


def direct_messages(item: Item) -> list[dict[str, str]]:
    """The release's prompt for one item, as one user message (the release sends no system
    message). Options are the item's, in its (seeded) order, lettered ``A:`` .. ``D:``; a
    counterfactual item's NOTA is the release's ``E: None of the above.``

    Examples
    --------
    >>> item = Item(id="x", story="client: I tried.", question="?", answer="b",
    ...             choices=("a", "b", "c", "d"), meta={"task": "retrospective", "domain": "MI",
    ...             "attribute": "Belief", "topic": "on smoking"})
    >>> text = direct_messages(item)[0]["content"]
    >>> "Client's Belief state" in text, "C: c" in text
    (True, True)
    """
    task, domain = item.meta["task"], str(item.meta.get("domain"))
    if why := _unknown_domain(domain):  # the loader makes such a record malformed
        raise DataFormatError(f"DialToM item {item.id}: {why}")
    lettered = [
        f"{'ABCDE'[i]}: {'None of the above.' if c == NOTA else _named(c, domain)}"
        for i, c in enumerate(item.choices)
    ]
    if task == "retrospective":
        text = _RETROSPECTIVE.format(
            agent1=AGENT1[domain], agent2=AGENT2[domain], task_desc=TASK_DESC[domain],
            topic=item.meta.get("topic"), state=item.meta["attribute"], ctx=item.story,
            options="\n".join(lettered),
        )  # fmt: skip
    elif task == "written":
        opening = OPENINGS[item.meta["attribute"]].format(initiator=AGENT1[domain])
        text = _WRITTEN.format(
            agent1=AGENT1[domain], agent2=AGENT2[domain], state=item.meta["attribute"],
            ctx=_named(item.story, domain), opening=opening,
        )  # fmt: skip
    else:
        nota = task == "counterfactual"
        text = _PROSPECTIVE.format(
            nota=" It can also be that none of the options are correct." if nota else "",
            agent2=AGENT2[domain], profile=item.story, options="\n".join(lettered),
            instructions=_INSTRUCTIONS_NOTA if nota else _INSTRUCTIONS,
        )  # fmt: skip
    return [{"role": "user", "content": text}]


class ReleasePrompt:
    """DialToM's release prompts for the direct baseline: one request per item, the reply
    scored by the offline adapter's scorers (written lines by BLEU / ROUGE-L / embeddings)."""

    prompt_id = DIRECT_PROMPT_ID

    def __init__(self, offline: _Offline) -> None:
        self.offline = offline

    def story_key(self, item: Item) -> str:
        return item.id

    def run(self, item: Item, ask: Any) -> str | None:
        if item.meta.get("malformed"):
            return None  # nothing to ask: the offline scorer counts it
        return ask(direct_messages(item))

    def score(self, item: Item, state: Any) -> ItemResult:
        if item.meta.get("malformed"):
            return self.offline(item, _profile_graph(item))
        reply, breakdown = str(state), _breakdown(item)
        why = (f"Asked directly ({self.prompt_id}); the model replied {reply[:300]!r}.",)
        if item.meta["task"] == "written":
            line = " ".join(reply.strip().splitlines()[0].split()) if reply.strip() else ""
            self.offline.written_figures(item, line, "written")
            return ItemResult.answered(item, line, explanation=why, breakdown=breakdown)
        lc = length_choice(item.choices)
        self.offline.tally.record(item.id, "length_baseline", item.choices[lc] == item.answer,
                                  breakdown)  # fmt: skip
        index = letter_reply(reply, "ABCDE"[: len(item.choices)])
        if index is None:
            raise BeliefGraphError(f"the model's reply names no option: {reply[:200]!r}")
        return ItemResult.answered(item, item.choices[index], explanation=why, breakdown=breakdown)


def _record_key(item: Item) -> str:
    """One dialogue window per key (``_story_key`` without the text)."""
    return _story_key(item)


@benchmarks.register("dialtom")
def make_dialtom(
    embeddings: bool | None = None,
    *,
    direct: bool = False,
    dialogues: int | None = None,
    readings: bool = False,
) -> Benchmark:
    """The DialToM adapter with the offline scorers (length baseline, NOTA false alarms,
    written-task metrics and malformed-record counts in ``metrics``).

    Parameters
    ----------
    embeddings : bool, optional
        Compute the written task's embedding similarity (default: when the model package is
        installed and ``BELIEFGRAPH_EMBEDDINGS`` is not ``0``).
    direct : bool
        The same-model direct baseline: each item asked in the release's own prompt
        (``direct_messages``) through the run's LLM client, scored by the same scorers.
    dialogues : int, optional
        Only the items of the first ``dialogues`` dialogue windows (retrospective, written)
        or items (forecasting) of what the loader reads, in its order.
    readings : bool
        Under a model's parse, the recipient's perspective also counts the model's readings
        of the turns (``recipient_perspective``); off by default.
    """
    tally = Tally()
    offline = _Offline(tally, _embedder(embeddings), readings)
    base = Benchmark(
        name="dialtom",
        load=first_dialogues(load_dialtom, dialogues, _record_key),
        build=_build,
        answer=offline,
        breakdowns=BREAKDOWNS,
        metrics=tally.metrics(),
        parallel=False,  # the tally the metrics read lives in this process
        story_key=_story_key,
    )
    if direct:
        from .direct import make_direct

        return make_direct(base, ReleasePrompt(offline))
    return base


# -- the LLM path --------------------------------------------------------------------------
class WrittenInference(BaseModel):
    """One line of first-person inference."""

    text: str = Field(description="One sentence in the first person")

    @field_validator("text")
    @classmethod
    def _opening(cls, v: str, info: ValidationInfo) -> str:
        opening = (info.context or {}).get("opening", "")
        line = " ".join(v.split())
        if opening and not line.lower().startswith(opening.lower()):
            raise ValueError(f'the inference must start with "{opening}"; got {line[:60]!r}')
        return line


class DialToMLLM:
    """DialToM through an LLM: retrospective with the dialogue, prospective and
    counterfactual with the profile only, written as one generated line.

    Raises
    ------
    LLMConfigurationError
        When no endpoint or model is configured.
    """

    def __init__(self, scorer: LLMOptionScorer | None = None, **settings: Any) -> None:
        self.scorer = scorer if scorer is not None else LLMOptionScorer(**settings)

    @staticmethod
    def messages(item: Item) -> list[dict[str, str]]:
        """The prompt: the dialogue (retrospective, written) or the profile alone.

        Examples
        --------
        >>> item = Item(id="x", story="Belief: I believe it helps.", question="Which?",
        ...             choices=("client: yes", NOTA), answer=NOTA,
        ...             meta={"task": "counterfactual", "recipient": "client"})
        >>> "Mental state of the client" in DialToMLLM.messages(item)[1]["content"]
        True
        """
        task = item.meta.get("task")
        if task in ("retrospective", "written"):
            context = f"Conversation:\n{item.story}"
        else:
            context = f"Mental state of the {item.meta.get('recipient')}:\n{item.story}"
        return LLMOptionScorer.messages(context, item.question, item.choices)

    def choose(self, item: Item) -> tuple[int, str, int]:
        before = self.scorer.calls
        index, reason = self._call(
            lambda: self.scorer.choose(self.messages(item), len(item.choices))
        )
        return index, reason, self.scorer.calls - before

    def write(self, item: Item) -> tuple[str, int]:
        before = self.scorer.calls
        messages = self.messages(item)
        messages[1]["content"] = messages[1]["content"].split("\n\n# Options")[0]
        reply = self._call(
            lambda: self.scorer.client.extract(
                WrittenInference,
                messages,
                context={"opening": item.meta["opening"]},
                prompt="dialtom.written.v1",
                max_tokens=256,
            )
        )
        return reply.text, self.scorer.calls - before

    @staticmethod
    def _call(fn: Any) -> Any:
        from beliefgraph.parsers.llm.errors import LLMError

        try:
            return fn()
        except BeliefGraphError:
            raise
        except Exception as err:  # openai / instructor errors become ours
            raise LLMError(f"the LLM scorer failed: {type(err).__name__}: {err}") from err


@benchmarks.register("dialtom-llm")
def make_dialtom_llm(embeddings: bool | None = None, **settings: Any) -> Benchmark:
    """DialToM answered by an LLM (endpoint from the environment or ``settings``)."""
    tally = Tally()
    offline = _Offline(tally, _embedder(embeddings))
    built: list[DialToMLLM] = []  # the client is made at the first answer, not on load

    def answer(item: Item, graph: BeliefGraph) -> ItemResult:
        breakdown = _breakdown(item)
        if item.meta.get("malformed"):
            return offline(item, graph)
        if not built:
            built.append(DialToMLLM(**settings))
        llm = built[0]
        if item.meta["task"] == "written":
            text, calls = llm.write(item)
            offline.written_figures(item, text, "written")
            return ItemResult.answered(
                item,
                text,
                breakdown=breakdown,
                llm_calls=calls,
            )
        lc = length_choice(item.choices)
        tally.record(item.id, "length_baseline", item.choices[lc] == item.answer, breakdown)
        index, reason, calls = llm.choose(item)
        prediction = item.choices[index]
        return ItemResult.answered(
            item,
            prediction,
            explanation=(reason,),
            breakdown=breakdown,
            llm_calls=calls,
        )

    return Benchmark(
        name="dialtom-llm",
        load=load_dialtom,
        build=_build,
        answer=answer,
        breakdowns=BREAKDOWNS,
        metrics=tally.metrics(),
        parallel=False,  # the tally the metrics read lives in this process
        story_key=_story_key,
    )
