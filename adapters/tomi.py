"""ToMi (Le et al., 2019): bAbI-numbered stories with a ``.trace`` file of story types.

Official breakdowns: story type (true belief, false belief, second-order false belief, from
the trace) and question type (reality, memory, first order, second order). The trace's
``tom`` / ``no_tom`` tags are derived from the gold answer, so they are kept in ``meta`` for
reporting and never used to answer.

ToMi's world has open containers: an agent who enters a room learns where everything in it
is, and everyone present sees that happen; the adapter switches that perception setting on.
The release's second-order ``no_tom`` labels often contradict the story (the label gives
where the object really is, though the inner agent left before it moved); such items are
classified, never answered to match.
"""

from __future__ import annotations

from pathlib import Path

from beliefgraph.api import track
from beliefgraph.errors import DataFormatError
from beliefgraph.graph import BeliefGraph
from beliefgraph.solvers import PerceptionModel

from .benchmark import Benchmark, benchmarks
from .item import Item, ItemResult
from .loading import (
    RECORD_ERRORS,
    Problems,
    has_bad_bytes,
    read_text,
    require_utf8,
    strict_if_none,
)

__all__ = ["load_tomi", "make_tomi"]

PERCEPTION = PerceptionModel(open_containers=True)
_QUESTION_TYPES = ("first_order", "second_order", "reality", "memory")


def load_tomi(path: Path, problems: Problems | None = None) -> list[Item]:
    """Read a ToMi ``.txt`` file (and its ``.trace`` beside it), or every ``.txt`` in a folder.

    A line ending in "?" is a question and must carry ``<question>\\t<answer>\\t<support>``;
    one without an answer is reported, never read as a story line.

    Raises
    ------
    DataFormatError
        Naming the file and line of a malformed line, or a trace that does not match (with
        ``problems`` given, these are collected there and the rest is read).
    """
    problems = strict_if_none(problems)
    if path.is_dir():
        return problems.folder(path, "*.txt", load_tomi, "ToMi")
    items = []
    story: list[str] = []
    broken: int | None = None  # the line of a story line that could not be read
    questions = 0  # every question line, read or not, to keep the trace aligned
    trace = _read_trace(path, problems)
    text = read_text(path)
    # One search for undecodable bytes over the whole file; only when it finds one is every
    # line checked (a released file has none, and 53,000 checks were a tenth of the load).
    checked = has_bad_bytes(text)
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        number, _, sentence = line.partition(" ")
        if number == "1":
            story, broken = [], None
        is_question = "\t" in sentence or sentence.rstrip().endswith("?")
        k = questions
        questions += is_question
        # ``problems.record`` without a context manager per line (see ``add_error``)
        try:
            if checked:
                require_utf8(line, "the line")
            if not number.isdigit() or not sentence:
                raise DataFormatError(f"expected a numbered line '<n> <sentence>', got {line!r}")
            if not is_question:
                story.append(line)
                continue
            items.append(_question(path, lineno, line, sentence, story, broken, trace, k))
        except RECORD_ERRORS as err:
            problems.add_error(path, lineno, err)
            if not is_question:
                broken = lineno  # a story line was reported: its questions cannot be answered
    if trace is not None and len(trace) != questions:
        problems.add(
            path.with_suffix(".trace"),
            None,
            f"{len(trace)} lines for {questions} questions in {path.name}; the story types "
            "of the questions past the shorter one are unknown",
        )
    return problems.result(items)


def _question(
    path: Path,
    lineno: int,
    line: str,
    sentence: str,
    story: list[str],
    broken: int | None,
    trace: list[str] | None,
    k: int,
) -> Item:
    """The item of the question line ``line`` (the ``k``-th question of the file)."""
    fields = sentence.split("\t")
    if len(fields) < 2 or not fields[1].strip():
        raise DataFormatError(
            f"a question needs its answer: expected '<question>\\t<answer>\\t<support>', "
            f"got {line!r}"
        )
    if broken is not None:
        raise DataFormatError(f"its story has an unreadable line ({path}:{broken})")
    meta: dict[str, object] = {"file": path.name, "line": lineno}
    if trace is not None and k < len(trace) and trace[k]:
        meta.update(_trace_meta(trace[k]))
    return Item(
        id=f"{path.stem}:{lineno}",
        story="\n".join(story),
        question=fields[0].strip(),
        answer=fields[1].strip(),
        meta=meta,
    )


def _read_trace(path: Path, problems: Problems) -> list[str] | None:
    trace = path.with_suffix(".trace")
    if not trace.is_file():
        return None
    text = read_text(trace)
    checked = has_bad_bytes(text)
    lines = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            lines.append("")  # an unreadable line keeps its place, so the rest stay aligned
            try:
                if checked:
                    require_utf8(line, "the trace line")
                lines[-1] = line.strip()
            except RECORD_ERRORS as err:
                problems.add_error(trace, lineno, err)
    return lines


def _trace_meta(line: str) -> dict[str, object]:
    fields = line.split(",")
    tag, story_type = fields[-2], fields[-1]
    qtype = next((q for q in _QUESTION_TYPES if tag.startswith(q)), tag)
    return {
        "question_type": qtype,
        "story_type": story_type,
        "trace_tag": tag,
        "trace": fields[:-2],
    }


def _build(item: Item) -> BeliefGraph:
    return track(item.story, perception=PERCEPTION, strict=False)


def _answer(item: Item, graph: BeliefGraph) -> ItemResult:
    answer = graph.ask(item.question)
    correct = answer.value == item.answer
    disagreement = None if correct else _classify(item, graph)
    return ItemResult(
        id=item.id,
        gold=item.answer,
        prediction=answer.value,
        correct=correct,
        explanation=answer.explanation,
        breakdown={
            "story_type": str(item.meta.get("story_type", "unknown")),
            "question_type": str(item.meta.get("question_type", "unknown")),
            "label": "supported" if correct else "contradicted",
        },
        supported=correct,
        disagreement=disagreement,
    )


def _classify(item: Item, graph: BeliefGraph) -> str:
    """Name the way a label departs from the story (for the noise report)."""
    from beliefgraph.questions import read_question

    q = read_question(item.question)
    var = (q.target, "in")
    world = graph.world().get(var)
    if len(q.chain) == 2:
        outer = graph.belief(q.chain[:1], variable=var)
        if outer is not None and outer.proposition.value == item.answer:
            return "second order labelled with the asker's own belief"
    if item.answer == world:
        return "labelled with the true location"
    return "other"


@benchmarks.register("tomi")
def make_tomi() -> Benchmark:
    """The ToMi adapter."""
    return Benchmark(
        name="tomi",
        load=load_tomi,
        build=_build,
        answer=_answer,
        breakdowns=("story_type", "question_type", "label"),
    )
